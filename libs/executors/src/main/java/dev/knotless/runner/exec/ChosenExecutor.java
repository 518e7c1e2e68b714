package dev.knotless.runner.exec;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A kind of executor with its settings read: what a runner was told to run steps with, ready to
 * make. Immutable.
 *
 * @param kind the kind
 * @param settings its settings, as {@link ExecutorKind#settings} read them
 * @param <S> the kind's settings type
 */
public record ChosenExecutor<S>(ExecutorKind<S> kind, S settings) {

  /** Checks the values. */
  public ChosenExecutor {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(settings, "settings");
  }

  /** Reads {@code config} into {@code kind}'s settings. */
  public static <S> ChosenExecutor<S> of(ExecutorKind<S> kind, ExecutorConfig config) {
    return new ChosenExecutor<>(kind, kind.settings(config));
  }

  /** The kind's name. */
  public String name() {
    return kind.name();
  }

  /** Why it cannot run here, or empty ({@link ExecutorKind#unavailable}). */
  public Optional<String> unavailable() {
    return kind.unavailable(settings);
  }

  /** Makes the executor ({@link ExecutorKind#open}). */
  public Executor open(ExecutorContext context) {
    return kind.open(settings, context);
  }

  /** The runner's variables a step may see ({@link ExecutorKind#hostEnvironment}). */
  public Map<String, String> hostEnvironment(Map<String, String> runnerEnv) {
    return kind.hostEnvironment(runnerEnv);
  }

  /** The settings, when they are of {@code type}. */
  public <T> Optional<T> settings(Class<T> type) {
    return type.isInstance(settings) ? Optional.of(type.cast(settings)) : Optional.empty();
  }
}
