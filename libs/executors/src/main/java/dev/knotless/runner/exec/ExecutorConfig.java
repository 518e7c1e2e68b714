package dev.knotless.runner.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The values an {@link ExecutorKind} reads its settings from: flag values by name without their
 * {@code --} (the command line's, or a service's config mapped onto the same names), and the
 * runner's environment for defaults such as {@code DOCKER_HOST}. The readers below name the flag in
 * what they throw, so a wrong value reads the same from either source. Immutable.
 *
 * @param values flag values by name, such as {@code image -> node:22}
 * @param env the runner's environment
 */
public record ExecutorConfig(Map<String, String> values, Map<String, String> env) {

  /** No values and an empty environment: every kind's defaults. */
  public static final ExecutorConfig EMPTY = new ExecutorConfig(Map.of(), Map.of());

  /** Copies the maps. */
  public ExecutorConfig {
    values = Map.copyOf(values);
    env = Map.copyOf(env);
  }

  /** Config of these values, with {@code env}; null values are left out (unset). */
  public static ExecutorConfig of(Map<String, String> values, Map<String, String> env) {
    Map<String, String> set = new LinkedHashMap<>();
    values.forEach(
        (k, v) -> {
          if (v != null) {
            set.put(k, v);
          }
        });
    return new ExecutorConfig(set, env);
  }

  /** The value of {@code flag}, when given. */
  public Optional<String> get(String flag) {
    return Optional.ofNullable(values.get(flag));
  }

  /** The value of {@code flag}, refused when blank. */
  public Optional<String> text(String flag) {
    Optional<String> v = get(flag);
    if (v.isPresent() && v.get().isBlank()) {
      throw new IllegalArgumentException("--" + flag + ": empty");
    }
    return v;
  }

  /** A whole number above 0; {@code what} says its unit and an example ("GiB, such as 4"). */
  public Optional<Integer> wholeAbove0(String flag, String what) {
    return get(flag)
        .map(
            v -> {
              try {
                int n = Integer.parseInt(v);
                if (n > 0) {
                  return n;
                }
              } catch (NumberFormatException e) {
                // Said below.
              }
              throw new IllegalArgumentException(
                  "--" + flag + " " + v + ": expected whole " + what);
            });
  }

  /** A whole number, 0 or more; {@code what} says its unit and an example. */
  public Optional<Long> wholeFrom0(String flag, String what) {
    return get(flag)
        .map(
            v -> {
              try {
                long n = Long.parseLong(v);
                if (n >= 0) {
                  return n;
                }
              } catch (NumberFormatException e) {
                // Said below.
              }
              throw new IllegalArgumentException(
                  "--" + flag + " " + v + ": expected whole " + what);
            });
  }

  /** A number of CPUs above 0 and at most 4096. */
  public Optional<Double> cpus(String flag) {
    return get(flag)
        .map(
            v -> {
              try {
                double n = Double.parseDouble(v);
                if (n > 0 && n <= 4096 && !Double.isNaN(n)) {
                  return n;
                }
              } catch (NumberFormatException e) {
                // Said below.
              }
              throw new IllegalArgumentException(
                  "--" + flag + " " + v + ": expected a number of CPUs above 0, such as 2 or 1.5");
            });
  }

  /** A duration as {@link java.time.Duration#parse} reads it ({@code PT30S}). */
  public Optional<java.time.Duration> duration(String flag) {
    return get(flag)
        .map(
            v -> {
              try {
                return java.time.Duration.parse(v);
              } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException(
                    "--" + flag + " " + v + ": expected a duration such as PT30S", e);
              }
            });
  }
}
