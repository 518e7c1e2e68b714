package dev.knotless.runner.pass;

import dev.knotless.atproto.BlobRef;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pull.PassReuse;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.storage.git.Git;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A push to the default branch taking a trusted pull's pass at the same tree ({@link PassReuse}):
 * its check is filed as success with the earlier run's steps and outputs, and a log that names the
 * run it took and then copies that run's log, so it reads whole once the earlier check is pruned.
 * Nothing runs. Thread-safe.
 */
public final class PassTaking {

  private static final Logger LOG = LoggerFactory.getLogger(PassTaking.class);

  private final CheckFiler filer;
  private final StateStore state;
  private volatile Function<String, List<String>> keptLayers = check -> List.of();

  public PassTaking(CheckFiler filer, StateStore state) {
    this.filer = filer;
    this.state = state;
  }

  /**
   * Has a push taking a pass promote the cache layers that pass kept, by its check's AT-URI, with
   * {@code promote}, which returns lines for the push's log.
   */
  public void promotingKeptLayers(Function<String, List<String>> promote) {
    this.keptLayers = promote;
  }

  /**
   * Files {@code key}'s check as the pass it takes, if there is one to take.
   *
   * @param rerun whether the push's run is a rerun or asked for by name, which always run
   * @return whether it filed the check; if not, the workflow is to run as usual
   */
  boolean take(
      Watched repo,
      Git git,
      Workflow w,
      String ref,
      String defaultRef,
      String commit,
      boolean rerun,
      String key,
      Instant now)
      throws IOException {
    if (PassReuse.whyNotTaken(w, ref, defaultRef, rerun).isPresent()) {
      return false;
    }
    List<PassedRun> passed = state.load(repo.stateKey()).map(RepoState::passed).orElse(List.of());
    if (passed.isEmpty()) {
      return false;
    }
    String tree = git.revParse(commit + "^{tree}");
    Optional<PassedRun> found = PassReuse.find(passed, tree, w.name());
    if (found.isEmpty()) {
      return false;
    }
    PassedRun earlier = found.get();
    Optional<CheckRecord> was = filer.read(earlier.check());
    Optional<String> whyNot = PassReuse.whyNotTakenNow(was.map(CheckRecord::status));
    if (whyNot.isPresent()) {
      LOG.info(
          "{}: {} at {}: not taking the pass of {}: {}; it runs",
          repo.label(),
          w.name(),
          commit.substring(0, 12),
          earlier.check(),
          whyNot.get());
      return false;
    }
    CheckRecord took = was.get();
    // The layers the pass kept become the bases' next generations, as this push's run would make.
    List<String> caches = keptLayers.apply(earlier.check());
    BlobRef log = filer.uploadLog(key, log(earlier, took, tree, caches));
    CheckRecord check =
        new CheckRecord(
            repo.repoUri(),
            ref,
            commit,
            null,
            null,
            w.name(),
            CheckStatus.SUCCESS,
            now,
            now,
            now,
            took.steps(),
            log,
            took.outputs(),
            note(earlier));
    filer.file(key, check);
    LOG.info(
        "{}: {} at {}: took the pass of {} at the same tree {}; nothing run",
        repo.label(),
        w.name(),
        commit.substring(0, 12),
        earlier.check(),
        tree.substring(0, 12));
    return true;
  }

  /** The note of a check that took {@code earlier}'s pass. */
  static String note(PassedRun earlier) {
    return "took the pass of " + earlier.check() + " (" + earlier.subject() + ") at the same tree";
  }

  private byte[] log(PassedRun earlier, CheckRecord took, String tree, List<String> caches)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String head =
        "==> the tree "
            + tree
            + " passed in "
            + earlier.check()
            + ", the run of "
            + earlier.subject()
            + " at "
            + took.commit()
            + (took.baseCommit() == null ? "" : " on " + took.baseCommit())
            + "\n==> its result is taken and nothing is run again; its log follows\n";
    out.write(head.getBytes(StandardCharsets.UTF_8));
    if (took.log() != null) {
      out.write(filer.blob(took.log()));
    }
    if (!caches.isEmpty()) {
      out.write(
          ("==> the caches this push takes from it\n" + String.join("\n", caches) + "\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }
}
