package dev.knotless.runner.pass;

import dev.knotless.atproto.RecordStore;
import dev.knotless.runner.reconcile.RerunRequest;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of a pass: reads the owner's rerun requests newer than the newest acted on, and
 * applies them to the state with runner-core's {@link dev.knotless.runner.reconcile.Reruns}. On a
 * first watch they are the starting point: the newest is recorded, none acted on. Requests naming
 * pulls are recorded, and with {@code --pulls} run where the pull is at the pass's pulls step.
 * Stateless; thread-safe.
 */
public final class Reruns {

  private static final Logger LOG = LoggerFactory.getLogger(Reruns.class);

  private Reruns() {}

  /** The requests newer than {@code acted}, the newest the state says was acted on. */
  public static List<RerunRequest> read(RecordStore owner, Watched repo, String acted)
      throws IOException {
    return RerunRecords.newerThan(
        owner, repo.id().ownerDid(), repo.id().repoKey(), acted, repo.label());
  }

  /**
   * Applies {@code fresh}, as {@link #read} found them, to the state, {@code known} as the pass
   * read it, recording the newest in the state.
   *
   * @param baseline whether this is the repository's first watch
   * @param pulls whether this runner checks pulls ({@code --pulls})
   * @return the state as the rest of the pass plans from
   */
  public static RepoState apply(
      List<RerunRequest> fresh,
      Watched repo,
      StateStore state,
      RepoState known,
      boolean baseline,
      boolean pulls)
      throws IOException {
    if (fresh.isEmpty()) {
      return known;
    }
    dev.knotless.runner.reconcile.Reruns.Applied[] applied = {null};
    RepoState after =
        state.update(
            repo.stateKey(),
            s -> {
              applied[0] = dev.knotless.runner.reconcile.Reruns.apply(s, fresh, pulls, baseline);
              return applied[0].state();
            });
    if (baseline) {
      LOG.info("{}: first pass: {} rerun requests taken as they are", repo.label(), fresh.size());
    }
    for (RerunRequest r : applied[0].actedOn()) {
      LOG.info("{}: rerun request {}: {}", repo.label(), r.rkey(), describe(r, pulls));
    }
    return after;
  }

  private static String describe(RerunRequest r, boolean pulls) {
    if (!r.pull().isEmpty()) {
      return pulls
          ? "pull " + r.pull() + " runs where it is now"
          : "pull " + r.pull() + " recorded; this runner runs no pulls";
    }
    if (r.ref().isEmpty()) {
      return "names neither a ref nor a pull, so does nothing";
    }
    if (r.workflow().isEmpty()) {
      return "every workflow at " + r.ref() + " runs again";
    }
    return r.workflow()
        + " asked for by name at "
        + r.ref()
        + (r.variables().isEmpty() ? "" : " with variables " + r.variables().keySet());
  }

  /** Reads the rerun requests on another thread, so they go out beside the snapshot's reads. */
  public static java.util.concurrent.CompletableFuture<
          List<dev.knotless.runner.reconcile.RerunRequest>>
      readBeside(RecordStore owner, Watched repo, String acted) {
    return dev.knotless.storage.Threads.async(() -> read(owner, repo, acted));
  }
}
