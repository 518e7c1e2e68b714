package dev.knotless.runner.cli;

import dev.knotless.runner.exec.ChosenExecutor;
import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.ExecutorKind;
import dev.knotless.runner.exec.ExecutorKinds;
import dev.knotless.runner.exec.docker.DockerKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The flags that choose the executor and configure it, gathered while the command line is read and
 * handed at its end to the chosen kind, which reads its own ({@link ExecutorKind#settings}). The
 * kinds, and so the flags, are those {@link ExecutorKinds#installed} finds. Not thread-safe: one
 * per parse.
 */
final class ExecutorFlags {

  /** The kinds the command line chooses from. */
  static final ExecutorKinds KINDS = ExecutorKinds.installed();

  /** Every flag these take: the executor, the kinds' own, and {@code --trust}. */
  static final List<String> FLAGS =
      Stream.concat(Stream.of("--executor", "--trust"), KINDS.flags().stream().map(f -> "--" + f))
          .toList();

  private String executor = DockerKind.NAME;
  private final Map<String, String> env;
  private final Map<String, String> values = new LinkedHashMap<>();
  private final Set<String> trust = new LinkedHashSet<>();

  ExecutorFlags(Map<String, String> env) {
    this.env = env;
  }

  /** Takes {@code flag}, one of {@link #FLAGS}, with its {@code value}; the last value counts. */
  void take(String flag, String value) throws RunnerOptions.UsageException {
    switch (flag) {
      case "--executor" -> {
        if (KINDS.find(value).isEmpty()) {
          throw new RunnerOptions.UsageException(
              "--executor " + value + ": expected " + String.join(" or ", KINDS.names()));
        }
        executor = value;
      }
      case "--trust" -> {
        if (!value.startsWith("did:")) {
          throw new RunnerOptions.UsageException("--trust " + value + ": expected a DID");
        }
        trust.add(value);
      }
      default -> {
        if (!FLAGS.contains(flag)) {
          throw new IllegalArgumentException("not an executor flag: " + flag);
        }
        values.remove(flag.substring(2)); // kept in the order last given
        values.put(flag.substring(2), value);
      }
    }
  }

  /**
   * The chosen kind with its settings read from the flags given.
   *
   * @throws RunnerOptions.UsageException for a flag only another kind reads, or a value the kind
   *     refuses, naming the flag
   */
  ChosenExecutor<?> executor() throws RunnerOptions.UsageException {
    ExecutorKind<?> kind = KINDS.kind(executor);
    List<String> foreign = new ArrayList<>();
    ExecutorKind<?> owner = null;
    for (String f : values.keySet()) {
      if (!kind.flags().contains(f)) {
        foreign.add("--" + f);
        owner = owner != null ? owner : KINDS.owner(f).orElseThrow();
      }
    }
    if (owner != null) {
      throw new RunnerOptions.UsageException(
          String.join(", ", foreign)
              + ": only the "
              + owner.name()
              + " executor "
              + owner.what()
              + "; drop --executor "
              + executor);
    }
    try {
      return ChosenExecutor.of(kind, new ExecutorConfig(values, env));
    } catch (IllegalArgumentException e) {
      throw new RunnerOptions.UsageException(e.getMessage());
    }
  }

  Set<String> trust() {
    return Set.copyOf(trust);
  }
}
