package dev.knotless.run.checkwriter.domain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.liveoutput.Progress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the run events of one check said so far, apart from its log bytes: the record to file and
 * the progress a live-output send carries. Immutable; {@link #apply} gives the next state.
 *
 * @param filed the run's filed event, which names what is checked
 * @param status queued, running, or how the run ended
 * @param startedAt when the run started, or null while queued
 * @param endedAt when the run ended, or null
 * @param steps the steps so far, ended ones with their outcome, the one going last as running
 * @param stepGoing the step running now, or null
 * @param logLength the log's length in bytes as the ended event gave it, or -1 before
 * @param note the check's note as the ended event gave it, or null
 * @param outputs the images the ended event named, already uploaded, in the check's order
 */
public record CheckProgress(
    RunEvent.Filed filed,
    CheckStatus status,
    Instant startedAt,
    Instant endedAt,
    List<StepResult> steps,
    String stepGoing,
    long logLength,
    String note,
    List<RunEvent.ImageOutput> outputs) {

  public CheckProgress {
    steps = List.copyOf(steps);
    outputs = List.copyOf(outputs);
  }

  /** A check just filed as queued. */
  public static CheckProgress filed(RunEvent.Filed filed) {
    return new CheckProgress(
        filed, CheckStatus.QUEUED, null, null, List.of(), null, -1, null, List.of());
  }

  /**
   * The state after {@code event}; output leaves it as it is (its bytes go to the log).
   *
   * @throws IllegalArgumentException naming the outcome or status when it is not one
   */
  public CheckProgress apply(RunEvent event) {
    if (event instanceof RunEvent.Started s) {
      return new CheckProgress(
          filed, CheckStatus.RUNNING, s.at(), null, steps, stepGoing, logLength, note, outputs);
    } else if (event instanceof RunEvent.StepStarted s) {
      return new CheckProgress(
          filed,
          status == CheckStatus.QUEUED ? CheckStatus.RUNNING : status,
          startedAt == null ? s.at() : startedAt,
          endedAt,
          steps,
          s.step(),
          logLength,
          note,
          outputs);
    } else if (event instanceof RunEvent.StepEnded s) {
      List<StepResult> next = new ArrayList<>(steps);
      StepResult.Status outcome = StepResult.Status.fromWire(s.outcome());
      // A skipped step never ran, so it has no times, as the all-in-one files it.
      boolean ran = outcome != StepResult.Status.SKIPPED;
      next.add(
          new StepResult(
              s.step(),
              outcome,
              ran ? s.at().minusMillis(s.millis()) : null,
              ran ? s.at() : null,
              s.note()));
      return new CheckProgress(
          filed, status, startedAt, endedAt, next, null, logLength, note, outputs);
    } else if (event instanceof RunEvent.Ended e) {
      return new CheckProgress(
          filed,
          CheckStatus.fromWire(e.status()),
          startedAt == null ? e.at() : startedAt,
          e.at(),
          steps,
          null,
          e.logLength(),
          e.note(),
          e.outputs());
    }
    return this;
  }

  /** The steps ended so far as {@code name=outcome}, for a live-output send. */
  public Progress progress() {
    List<String> ended = new ArrayList<>();
    for (StepResult s : steps) {
      ended.add(s.name() + "=" + s.status().wire());
    }
    return new Progress(startedAt == null ? filed.at() : startedAt, ended, stepGoing);
  }

  /**
   * The same check without its outputs: for filing it when the PDS no longer has their blobs
   * (uploaded by the process that ran it, and let go before the check named them).
   */
  public CheckProgress withoutOutputs() {
    return new CheckProgress(
        filed, status, startedAt, endedAt, steps, stepGoing, logLength, note, List.of());
  }

  /**
   * The check record as it stands, with {@code log} as its log blob (null for none yet) and its
   * outputs as the all-in-one files them ({@link CheckRecord#imageOutput}).
   */
  public CheckRecord record(BlobRef log) {
    return new CheckRecord(
        filed.repoUri() != null
            ? filed.repoUri()
            : "at://" + filed.ownerDid() + "/dev.knotless.repo/" + filed.repoKey(),
        filed.ref() != null ? filed.ref() : "",
        filed.commit(),
        filed.baseCommit(),
        filed.pull(),
        filed.workflow(),
        status,
        filed.at(),
        startedAt,
        endedAt,
        steps,
        log,
        images(),
        note);
  }

  private List<JsonNode> images() {
    List<JsonNode> out = new ArrayList<>();
    for (RunEvent.ImageOutput o : outputs) {
      out.add(CheckRecord.imageOutput(o.name(), new BlobRef(o.cid(), o.mimeType(), o.size())));
    }
    return out;
  }
}
