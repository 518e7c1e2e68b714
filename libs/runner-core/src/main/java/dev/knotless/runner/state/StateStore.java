package dev.knotless.runner.state;

import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Where the runner keeps its state: a JSON file in the all-in-one runner, PostgreSQL in the
 * services. Repositories are named {@code <owner did>/<repo key>}.
 *
 * <p>Every update is atomic: the change is applied and durably stored, or, if storing fails, not
 * applied at all, and readers never see half of one. Updates of one repository are serialized; a
 * change function must be pure, since an implementation may run it again on a conflict.
 * Implementations are thread-safe. A failure to store throws {@link StateStoreException}.
 */
public interface StateStore {

  /**
   * The repository's state, or empty if the runner has none: it was never watched, or its state was
   * lost. That is how a pass tells a first watch (a baseline that runs nothing).
   */
  Optional<RepoState> load(String repo);

  /**
   * Applies {@code change} to the repository's state ({@link RepoState#empty()} if there is none)
   * and stores the result, after which {@link #load} is present. Returns the stored state.
   */
  RepoState update(String repo, UnaryOperator<RepoState> change);

  /** Forgets the repository: it was deleted, or is no longer watched. */
  void remove(String repo);

  /** The repositories with state. */
  Set<String> repositories();

  /** The runner's own fields. */
  RunnerState runner();

  /** Applies {@code change} to the runner's own fields and stores the result atomically. */
  RunnerState updateRunner(UnaryOperator<RunnerState> change);
}
