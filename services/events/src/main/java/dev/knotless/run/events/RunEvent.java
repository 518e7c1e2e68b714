package dev.knotless.run.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;
import java.util.List;

/**
 * What happens to one run, in order, on topic {@link Topics#RUN_EVENTS} keyed by the check's record
 * key, so one partition carries one check's events in the order they happened.
 *
 * <p>Output carries log bytes that are already masked: the process that runs the steps masks the
 * log as it writes it, so no secret ever crosses Kafka. {@code offset} is the byte offset of {@code
 * data} in the run's log, so a consumer that sees a piece twice (a redelivery after a broker
 * restart) or skips one can tell.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = RunEvent.Filed.class, name = "filed"),
  @JsonSubTypes.Type(value = RunEvent.Started.class, name = "started"),
  @JsonSubTypes.Type(value = RunEvent.StepStarted.class, name = "stepStarted"),
  @JsonSubTypes.Type(value = RunEvent.Output.class, name = "output"),
  @JsonSubTypes.Type(value = RunEvent.StepEnded.class, name = "stepEnded"),
  @JsonSubTypes.Type(value = RunEvent.Ended.class, name = "ended"),
})
public sealed interface RunEvent {
  /** The check's record key, also the event's Kafka key. */
  String checkKey();

  /** When it happened. */
  Instant at();

  /**
   * The run was filed as queued.
   *
   * @param ownerDid the repository owner's DID
   * @param repoKey the repository's key
   * @param ref the full ref for a push, else null
   * @param pull the pull's AT-URI for a pull, else null
   * @param commit the commit checked (the head, for a pull)
   * @param baseCommit the base for a pull or batch, else null
   * @param workflow the workflow's name
   * @param repoUri the repository record's AT-URI as checks name it (keyed by the repository's
   *     name); null in events from before it was carried, where the key stands in
   */
  record Filed(
      String checkKey,
      Instant at,
      String ownerDid,
      String repoKey,
      String ref,
      String pull,
      String commit,
      String baseCommit,
      String workflow,
      String repoUri)
      implements RunEvent {}

  /** The run took a job and began. */
  record Started(String checkKey, Instant at) implements RunEvent {}

  /** A step began. */
  record StepStarted(String checkKey, Instant at, String step) implements RunEvent {}

  /**
   * Masked log bytes, as written.
   *
   * @param offset the byte offset of the first byte of {@code data} in the run's log
   * @param data the bytes (Jackson carries them as base64)
   */
  record Output(String checkKey, Instant at, long offset, byte[] data) implements RunEvent {}

  /**
   * A step ended.
   *
   * @param outcome {@code success}, {@code failure}, {@code cancelled} or {@code skipped}
   * @param millis how long it ran
   */
  record StepEnded(String checkKey, Instant at, String step, String outcome, long millis)
      implements RunEvent {}

  /**
   * The run ended.
   *
   * @param status {@code success}, {@code failure}, {@code cancelled} or {@code error}
   * @param logLength the log's length in bytes, so the writer knows it has it all
   * @param steps the steps' names and outcomes, in order, as {@code name=outcome}
   * @param note why, for the check's note (the failed step, the cancel's reason), or null
   */
  record Ended(
      String checkKey, Instant at, String status, long logLength, List<String> steps, String note)
      implements RunEvent {}
}
