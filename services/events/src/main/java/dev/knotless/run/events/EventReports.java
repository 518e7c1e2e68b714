package dev.knotless.run.events;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.engine.Checks;
import dev.knotless.runner.engine.FiledChecks;
import dev.knotless.runner.engine.RunReports;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.StepResult;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.plan.PlannedRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distributed worker's reports: each run's progress becomes run events for the check-writer,
 * which files the checks. The log goes out as it is written, piece by piece with its byte offset,
 * so the events rebuild it byte for byte; its outputs are uploaded as it ends ({@link
 * OutputUploads}) and its end carries their references. A run cancelled because this worker is
 * stopping reports no end: its queue row stays, and another worker runs it again once this one's
 * heartbeat is stale. Thread-safe.
 */
public final class EventReports implements RunReports {
  private static final Logger LOG = LoggerFactory.getLogger(EventReports.class);

  /** What the run queue hears of a run's life. */
  public interface Queue {
    /** The run took its job. */
    void started(String checkKey);

    /** The run ended and its end was published: its row goes. */
    void ended(String checkKey);

    /**
     * The run was cancelled after {@link #cutOff} named it and reported no end: whoever named it
     * hands it back.
     */
    default void cutOff(String checkKey) {}
  }

  /**
   * Uploads a run's outputs as blobs of the runner's account, so that its end carries only their
   * references: the bytes of 16 images would not fit in a Kafka message, and the blobs are the
   * runner's either way.
   */
  @FunctionalInterface
  public interface OutputUploads {
    /** Uploads nothing: the runs' checks are filed without outputs. */
    OutputUploads NONE = (run, files) -> List.of();

    /**
     * Uploads {@code files} of {@code run} (as {@link CheckFiler#uploadOutputBlobs} does for the
     * all-in-one).
     *
     * @return each image uploaded, in the order given; files that are not images are left out
     * @throws IOException when the PDS (or a private repository's space) did not take them
     */
    List<RunEvent.ImageOutput> upload(PlannedRun run, List<RunResult.OutputFile> files)
        throws IOException;

    /**
     * Uploads with {@code filer}: the runner's own account, or a private repository's space where
     * the filer has it routed.
     */
    static OutputUploads to(CheckFiler filer) {
      return (run, files) -> {
        List<CheckFiler.NamedBytes> named = new ArrayList<>();
        for (RunResult.OutputFile f : files) {
          named.add(new CheckFiler.NamedBytes(f.name(), f.bytes()));
        }
        List<RunEvent.ImageOutput> out = new ArrayList<>();
        for (CheckFiler.UploadedOutput o :
            filer.uploadOutputBlobs(run.rkey(), run.request().privateRepo(), named)) {
          out.add(
              new RunEvent.ImageOutput(
                  o.name(), o.image().cid(), o.image().mimeType(), o.image().size()));
        }
        return out;
      };
    }
  }

  private final Consumer<RunEvent> publish;
  private final Queue queue;
  private final Clock clock;
  private final FiledChecks.Keeper keeper;
  private final OutputUploads uploads;
  private volatile boolean stopping;
  private final java.util.Set<String> cutOff = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final java.util.Map<String, Follower> followers =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Reports whose runs' checks carry no outputs. */
  public EventReports(Consumer<RunEvent> publish, Queue queue, Clock clock) {
    this(publish, queue, clock, OutputUploads.NONE);
  }

  /** Reports whose runs' outputs are uploaded with {@code uploads} as each run ends. */
  public EventReports(Consumer<RunEvent> publish, Queue queue, Clock clock, OutputUploads uploads) {
    this(publish, queue, clock, uploads, (repo, passed) -> {});
  }

  /**
   * Reports that also keep each passing run's pass that its plan says to keep ({@link
   * PlannedRun#keptPass}) with {@code keeper}, before the run's end goes out: by the time its check
   * reads success, the push that merges its pull finds the pass.
   */
  public EventReports(
      Consumer<RunEvent> publish,
      Queue queue,
      Clock clock,
      OutputUploads uploads,
      FiledChecks.Keeper keeper) {
    this.publish = publish;
    this.queue = queue;
    this.clock = clock;
    this.uploads = uploads;
    this.keeper = keeper;
  }

  /** From now on, runs cancelled by the stop are left for another worker rather than ended. */
  public void stopping() {
    stopping = true;
  }

  /**
   * The run of {@code checkKey}, about to be cancelled by the stop, reports no end if it ends
   * cancelled: the queue hears {@link Queue#cutOff} instead, and the check stays as it is until the
   * run is filed again.
   */
  public void cutOff(String checkKey) {
    cutOff.add(checkKey);
  }

  /** The event that files {@code run}'s check as queued: the first of its events. */
  public static RunEvent.Filed filed(PlannedRun run) {
    CheckRecord c = run.check();
    String[] repo = run.request().repo().split("/", 2);
    return new RunEvent.Filed(
        run.rkey(),
        c.createdAt(),
        run.request().ownerDid(),
        repo.length == 2 ? repo[1] : run.request().repo(),
        c.ref(),
        c.pull(),
        c.commit(),
        c.baseCommit(),
        c.workflow(),
        c.repo(),
        run.request().privateRepo());
  }

  @Override
  public void started(PlannedRun run, CheckRecord running) {
    queue.started(run.rkey());
    publish.accept(new RunEvent.Started(run.rkey(), running.startedAt()));
  }

  @Override
  public RunListener listener(PlannedRun run) {
    Follower f = new Follower(run.rkey());
    followers.put(run.runId(), f);
    return f;
  }

  @Override
  public void ended(PlannedRun run, CheckRecord running, RunResult result, String fault) {
    String key = run.rkey();
    boolean wasCutOff = cutOff.remove(key);
    if (wasCutOff && result != null && result.outcome() instanceof RunOutcome.Cancelled) {
      queue.cutOff(key);
      return;
    }
    if (result == null) {
      followers.remove(run.runId());
      byte[] log =
          ("==> the run could not start: " + fault + "\n").getBytes(StandardCharsets.UTF_8);
      publish.accept(new RunEvent.Output(key, clock.instant(), 0, log));
      publish.accept(
          new RunEvent.Ended(key, clock.instant(), "error", log.length, List.of(), fault));
      queue.ended(key);
      return;
    }
    Follower follower = followers.remove(run.runId());
    if (stopping && result.outcome() instanceof RunOutcome.Cancelled) {
      return;
    }
    if (follower != null) {
      // What was added to the log after the steps (a write-back's line) goes out before the end.
      follower.runEnded(result);
    }
    if (run.keptPass() != null && Checks.status(result) == CheckStatus.SUCCESS) {
      try {
        keeper.keep(run.request().repo(), run.keptPass());
      } catch (RuntimeException e) {
        // The push that merges it then runs its steps again: nothing is lost but the time.
        LOG.error("{}: could not keep the pass of {}: {}", run.label(), key, e.getMessage());
      }
    }
    List<String> steps = new ArrayList<>();
    for (StepResult s : result.steps()) {
      steps.add(s.name() + "=" + s.status().wire());
    }
    long logLength = result.log().length;
    List<RunEvent.ImageOutput> outputs = List.of();
    if (!result.outputs().isEmpty()) {
      try {
        outputs = uploads.upload(run, result.outputs());
      } catch (IOException e) {
        // The check is filed all the same, its log saying what it lacks.
        byte[] line =
            ("==> the run's outputs could not be uploaded: " + e.getMessage() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        publish.accept(new RunEvent.Output(key, clock.instant(), logLength, line));
        logLength += line.length;
      }
    }
    publish.accept(
        new RunEvent.Ended(
            key,
            clock.instant(),
            Checks.status(result).wire(),
            logLength,
            steps,
            Checks.note(result),
            outputs));
    queue.ended(key);
  }

  @Override
  public void cancelledUnstarted(PlannedRun run, String why) {
    followers.remove(run.runId());
    if (stopping) {
      return;
    }
    List<String> steps = new ArrayList<>();
    run.check().steps().forEach(s -> steps.add(s.name() + "=cancelled"));
    publish.accept(new RunEvent.Ended(run.rkey(), clock.instant(), "cancelled", 0, steps, why));
    queue.ended(run.rkey());
  }

  /** One run's listener: its log as written, and its steps. */
  private final class Follower implements RunListener {
    private final String key;
    private long published;

    Follower(String key) {
      this.key = key;
    }

    @Override
    public void stepStarted(StepStarted event) {
      publish.accept(new RunEvent.StepStarted(key, event.at(), event.name()));
    }

    @Override
    public synchronized void logWritten(long offset, byte[] bytes) {
      publish.accept(new RunEvent.Output(key, clock.instant(), offset, bytes));
      published = Math.max(published, offset + bytes.length);
    }

    @Override
    public void stepEnded(StepResult result, long logOffset) {
      publish.accept(
          new RunEvent.StepEnded(
              key,
              result.ended(),
              result.name(),
              result.status().wire(),
              Duration.between(result.started(), result.ended()).toMillis(),
              result.note().isEmpty() ? null : result.note()));
    }

    @Override
    public synchronized void runEnded(RunResult result) {
      // What reached the log without passing through it (a note written as the run could not
      // even make its directory) still goes, so the events hold the whole log.
      byte[] log = result.log();
      if (log.length > published) {
        publish.accept(
            new RunEvent.Output(
                key,
                clock.instant(),
                published,
                Arrays.copyOfRange(log, (int) published, log.length)));
        published = log.length;
      }
    }
  }
}
