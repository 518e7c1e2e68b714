package dev.knotless.run.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
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
   * @param privateRepo whether the repository is private: its check, log and outputs are filed only
   *     in the space its records live in (its owner's space of its name, or where a rename's
   *     redirect leads); left out of the JSON when false
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
      String repoUri,
      @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean privateRepo)
      implements RunEvent {

    /** The canonical constructor, which reads the JSON. */
    @JsonCreator
    public Filed {}

    /** The repository's name, from {@code repoUri}, or null when the event carries none. */
    public String repoName() {
      if (repoUri == null) {
        return null;
      }
      int slash = repoUri.lastIndexOf('/');
      return slash < 0 ? null : repoUri.substring(slash + 1);
    }
  }

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
   * @param note why it was skipped, killed or cancelled, for the check's step (as the all-in-one
   *     files it), or null; left out of the JSON when null, so a step without one reads as it did
   *     before notes were carried
   */
  record StepEnded(
      String checkKey,
      Instant at,
      String step,
      String outcome,
      long millis,
      @JsonInclude(JsonInclude.Include.NON_NULL) String note)
      implements RunEvent {

    /** The canonical constructor, which reads the JSON. */
    @JsonCreator
    public StepEnded {}

    /** A step's end with no note. */
    public StepEnded(String checkKey, Instant at, String step, String outcome, long millis) {
      this(checkKey, at, step, outcome, millis, null);
    }
  }

  /**
   * The run ended.
   *
   * @param status {@code success}, {@code failure}, {@code cancelled} or {@code error}
   * @param logLength the log's length in bytes, so the writer knows it has it all
   * @param steps the steps' names and outcomes, in order, as {@code name=outcome}
   * @param note why, for the check's note (the failed step, the cancel's reason), or null
   * @param outputs the images the run left, already uploaded by the process that ran it, in the
   *     check's order; left out of the JSON when there are none, so an end without outputs reads as
   *     it did before they were carried
   */
  record Ended(
      String checkKey,
      Instant at,
      String status,
      long logLength,
      List<String> steps,
      String note,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ImageOutput> outputs)
      implements RunEvent {

    /** Copies the list; none for an event from before outputs were carried. */
    @JsonCreator
    public Ended {
      outputs = outputs == null ? List.of() : List.copyOf(outputs);
    }

    /** An end with no outputs. */
    public Ended(
        String checkKey,
        Instant at,
        String status,
        long logLength,
        List<String> steps,
        String note) {
      this(checkKey, at, status, logLength, steps, note, List.of());
    }
  }

  /**
   * An image a run left in its outputs directory, uploaded as a blob of the runner's account: only
   * the reference crosses Kafka, never the bytes.
   *
   * @param name its name, as the run named it (masked as the log is)
   * @param cid the blob's CID
   * @param mimeType the type it was uploaded as
   * @param size its length in bytes
   */
  record ImageOutput(String name, String cid, String mimeType, long size) {}
}
