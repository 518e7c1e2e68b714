package dev.knotless.runner.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a run asks of the executors beyond the neutral {@link RunSpec}: at most one value per option
 * type (such as {@link ContainerImage}, {@code CacheRequest}, {@code pod.RunKey}), each decoded by
 * the executors it means something to and ignored by the rest. The planner fills them without
 * knowing which executor runs the run. Immutable, so thread-safe.
 */
public final class ExecutorOptions {

  /** No options: every executor uses its defaults. */
  public static final ExecutorOptions NONE = new ExecutorOptions(Map.of());

  private final Map<Class<?>, Object> values;

  private ExecutorOptions(Map<Class<?>, Object> values) {
    this.values = values;
  }

  /** These options with {@code option} in place of any of its type. */
  public ExecutorOptions with(Object option) {
    Objects.requireNonNull(option, "option");
    Map<Class<?>, Object> copy = new LinkedHashMap<>(values);
    copy.put(option.getClass(), option);
    return new ExecutorOptions(Map.copyOf(copy));
  }

  /** The option of {@code type}, when the run set one. */
  public <T> Optional<T> find(Class<T> type) {
    return Optional.ofNullable(type.cast(values.get(type)));
  }

  /** The option of {@code type}, or {@code absent} when the run set none. */
  public <T> T get(Class<T> type, T absent) {
    Object v = values.get(type);
    return v == null ? absent : type.cast(v);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExecutorOptions other && values.equals(other.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return "ExecutorOptions" + values.values();
  }
}
