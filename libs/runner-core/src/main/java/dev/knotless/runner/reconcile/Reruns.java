package dev.knotless.runner.reconcile;

import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.WantedRun;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * What the owner's new rerun requests do to the state, the first step of a pass. Only requests
 * newer than the one last acted on count, oldest first. A ref asked for in full forgets its
 * generation and dropped runs, so all its workflows run at its target; a ref and a workflow wants
 * that workflow by name; a pull asked for (in full, or some workflows) is recorded to run where it
 * is now; a request naming neither does nothing. On a first watch, requests already there are the
 * starting point: the newest is recorded and none is acted on. Stateless and pure.
 */
public final class Reruns {
  private Reruns() {}

  /**
   * The result of applying requests.
   *
   * @param state the state with the requests acted on and the newest recorded
   * @param actedOn the requests acted on, oldest first
   */
  public record Applied(RepoState state, List<RerunRequest> actedOn) {
    public Applied {
      actedOn = List.copyOf(actedOn);
    }
  }

  /**
   * Applies the requests.
   *
   * @param pulls whether the runner checks pulls ({@code --pulls}); without it a pull request is
   *     recorded but where the pull last ran is kept
   * @param baseline whether this is the repository's first watch
   */
  public static Applied apply(
      RepoState state, List<RerunRequest> requests, boolean pulls, boolean baseline) {
    List<RerunRequest> fresh = new ArrayList<>();
    for (RerunRequest r : requests) {
      if (r.rkey().compareTo(state.rerun()) > 0) {
        fresh.add(r);
      }
    }
    fresh.sort(Comparator.comparing(RerunRequest::rkey));
    if (fresh.isEmpty()) {
      return new Applied(state, List.of());
    }
    RepoState s = state.withRerun(fresh.get(fresh.size() - 1).rkey());
    if (baseline) {
      return new Applied(s, List.of());
    }
    for (RerunRequest r : fresh) {
      s = act(s, r, pulls);
    }
    return new Applied(s, fresh);
  }

  private static RepoState act(RepoState s, RerunRequest r, boolean pulls) {
    if (!r.pull().isEmpty()) {
      RepoState asked =
          s.withAsked(r.pull(), r.workflow().isEmpty() ? Set.of() : Set.of(r.workflow()));
      return pulls && r.workflow().isEmpty() ? asked.withoutPull(r.pull()) : asked;
    }
    if (!r.ref().isEmpty()) {
      if (r.workflow().isEmpty()) {
        return s.forgetRef(r.ref());
      }
      return s.withWanted(r.ref(), new WantedRun(r.workflow(), r.variables()));
    }
    return s;
  }
}
