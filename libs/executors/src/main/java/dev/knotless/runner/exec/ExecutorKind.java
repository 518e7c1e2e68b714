package dev.knotless.runner.exec;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One kind of executor as a plug-in: its name, the flags and config keys it owns, how it reads them
 * into its own settings record, whether it can run here, and how it makes its {@link Executor}.
 * Found through {@link ExecutorKinds}; the command line, the reconciler's worker and the scheduler
 * all choose and configure executors through one, so each kind's settings are built in one place.
 * Implementations are stateless and thread-safe.
 *
 * @param <S> the kind's settings, an immutable record
 */
public interface ExecutorKind<S> {

  /** What the kind is called on the command line ({@code --executor <name>}) and in config. */
  String name();

  /**
   * The keys this kind reads, as command-line flags without their {@code --} ({@code image}, {@code
   * cpus}); a service's config maps its own keys onto these. A flag only another kind reads is
   * refused when this kind is chosen.
   */
  List<String> flags();

  /**
   * What a run's steps get under this kind, for the refusal of another kind's flags: "only the
   * docker executor {@code <what>}".
   */
  String what();

  /**
   * Reads {@code config} into this kind's settings; absent keys take the kind's defaults.
   *
   * @throws IllegalArgumentException naming the flag whose value is wrong
   */
  S settings(ExecutorConfig config);

  /**
   * Why this kind cannot run here with {@code settings}, in a sentence an operator can act on (the
   * docker daemon does not answer at its address, no API server is configured); empty when it can.
   * May block briefly to ask.
   */
  Optional<String> unavailable(S settings);

  /**
   * Makes the executor, logging where its runs go. Making one whose {@link #unavailable} is not
   * empty still succeeds: its runs end as errors that say so until it can run.
   *
   * @throws java.io.UncheckedIOException when something it keeps on disk cannot be made
   */
  Executor open(S settings, ExecutorContext context);

  /**
   * The runner's own variables a step may see under this kind: a few on the runner's host, none in
   * a container (the default).
   */
  default Map<String, String> hostEnvironment(Map<String, String> runnerEnv) {
    return Map.of();
  }
}
