package dev.knotless.runner.engine;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.FilingAhead;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.state.PassedRun;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The all-in-one runner's reports: each run's check filed in the runner's account as it starts and
 * as it ends, with its log and outputs uploaded. A write that still fails after the retries is
 * logged; the run's result stands. Thread-safe.
 */
public final class FiledChecks implements RunReports {

  private static final Logger LOG = LoggerFactory.getLogger(FiledChecks.class);

  private final CheckFiler filer;
  private final Clock clock;
  private final Keeper keeper;
  private final dev.knotless.runner.liveoutput.LiveOutput live;
  private final String runnerDid;

  /** Where a passing run's pass is kept, for a push at the same tree to take. */
  @FunctionalInterface
  public interface Keeper {
    /** Keeps {@code passed} in the state of the repository {@code stateKey}. */
    void keep(String stateKey, PassedRun passed);
  }

  /** Reports keeping no pass. */
  public FiledChecks(CheckFiler filer, Clock clock) {
    this(filer, clock, (key, passed) -> {});
  }

  /** Reports keeping each passing run's pass that its plan says to keep with {@code keeper}. */
  public FiledChecks(CheckFiler filer, Clock clock, Keeper keeper) {
    this(filer, clock, keeper, null, null);
  }

  private FiledChecks(
      CheckFiler filer,
      Clock clock,
      Keeper keeper,
      dev.knotless.runner.liveoutput.LiveOutput live,
      String runnerDid) {
    this.filer = filer;
    this.clock = clock;
    this.keeper = keeper;
    this.live = live;
    this.runnerDid = runnerDid;
  }

  /**
   * These reports, also sending each run's output to the appview as it prints, through {@code
   * live}, as the checks of {@code runnerDid}; {@code live} null sends none.
   */
  public FiledChecks withLiveOutput(
      dev.knotless.runner.liveoutput.LiveOutput live, String runnerDid) {
    return new FiledChecks(filer, clock, keeper, live, runnerDid);
  }

  @Override
  public dev.knotless.runner.exec.RunListener listener(PlannedRun run) {
    if (live == null) {
      return dev.knotless.runner.exec.RunListener.NONE;
    }
    // A private repository's run names its space, for the appview to show only to its members.
    var space = filer.spaces().spaceOf(run.rkey());
    return live.follow(
        run.rkey(),
        "at://" + runnerDid + "/dev.knotless.check/" + run.rkey(),
        space == null ? null : space.space().toString());
  }

  /**
   * Files the check running. A run whose own queued check is still on its way ({@link FilingAhead})
   * files over it without waiting for its reply; any other waits until the pass's checks are all
   * filed.
   */
  @Override
  public void started(PlannedRun run, CheckRecord running) throws XrpcException {
    FilingAhead ahead = run.ahead();
    String guard;
    try {
      guard = ahead.guardFor(run.rkey());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw XrpcException.noStatus("com.atproto.repo.putRecord", e);
    }
    if (guard != null) {
      try {
        filer.fileOver(run.rkey(), guard, running);
        return;
      } catch (XrpcException e) {
        if (e.kind() != XrpcException.Kind.INVALID_SWAP) {
          throw e;
        }
        LOG.debug(
            "{}: {} reached the PDS before its queued check; filed after it",
            run.label(),
            run.rkey());
      }
    }
    ahead.await();
    filer.file(run.rkey(), running);
  }

  @Override
  public void ended(PlannedRun p, CheckRecord started, RunResult result, String fault) {
    p.ahead().settle();
    if (live != null) {
      // The last live output goes before the check is filed, given five seconds at most.
      live.finish(p.rkey());
    }
    Instant now = clock.instant();
    try {
      if (result == null) {
        byte[] log =
            ("==> the run could not start: " + fault + "\n").getBytes(StandardCharsets.UTF_8);
        BlobRef blob = filer.uploadLog(p.rkey(), log);
        filer.file(
            p.rkey(),
            Checks.withLog(started.ended(CheckStatus.ERROR, now, List.of(), fault), blob));
        return;
      }
      BlobRef blob = filer.uploadLog(p.rkey(), result.log());
      CheckRecord done =
          Checks.withLog(
              started.ended(Checks.status(result), now, Checks.steps(result), Checks.note(result)),
              blob);
      if (!result.outputs().isEmpty()) {
        List<CheckFiler.NamedBytes> files = new ArrayList<>();
        for (RunResult.OutputFile f : result.outputs()) {
          files.add(new CheckFiler.NamedBytes(f.name(), f.bytes()));
        }
        done = Checks.withOutputs(done, filer.uploadOutputs(p.rkey(), files));
      }
      filer.file(p.rkey(), done);
      if (p.keptPass() != null && done.status() == CheckStatus.SUCCESS) {
        // Kept only once its success is filed: a push taking it reads that check.
        try {
          keeper.keep(p.request().repo(), p.keptPass());
        } catch (RuntimeException e) {
          LOG.error("{}: could not keep the pass of {}: {}", p.label(), p.rkey(), e.getMessage());
        }
      }
      LOG.info(
          "{}: {} at {} ended {}",
          p.label(),
          p.check().workflow(),
          p.check().commit(),
          done.status().wire());
    } catch (XrpcException e) {
      LOG.error("{}: could not file the end of {}: {}", p.label(), p.rkey(), e.getMessage());
    }
  }

  @Override
  public void withdrawn(PlannedRun p, String why) {
    p.ahead().settle();
    try {
      filer.delete(List.of(p.rkey()));
      LOG.info("{}: {} not run and its check deleted: {}", p.label(), p.rkey(), why);
    } catch (XrpcException e) {
      LOG.error("{}: could not delete the check {}: {}", p.label(), p.rkey(), e.getMessage());
    }
  }

  @Override
  public void cancelledUnstarted(PlannedRun p, String why) {
    p.ahead().settle();
    try {
      List<StepResult> steps = new ArrayList<>();
      for (StepResult s : p.check().steps()) {
        steps.add(new StepResult(s.name(), StepResult.Status.CANCELLED, null, null, null));
      }
      filer.file(p.rkey(), p.check().ended(CheckStatus.CANCELLED, clock.instant(), steps, why));
      LOG.info("{}: {} cancelled before it started: {}", p.label(), p.rkey(), why);
    } catch (XrpcException e) {
      LOG.error("{}: could not file {} as cancelled: {}", p.label(), p.rkey(), e.getMessage());
    }
  }
}
