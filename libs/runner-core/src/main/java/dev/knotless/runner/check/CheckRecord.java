package dev.knotless.runner.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * A dev.knotless.check record: one run of one workflow. Immutable and thread-safe.
 *
 * @param repo the repository's AT-URI ({@code at://<owner did>/dev.knotless.repo/<key>})
 * @param ref the full ref: the pushed ref, a pull's head branch, or a batch's base branch
 * @param commit the commit checked: the pushed commit, a pull's head, a batch's tip
 * @param baseCommit the base tip a pull or a batch was checked against, or null for a push
 * @param pull the pull's AT-URI, or null if not a pull's run
 * @param workflow the workflow's name as written (the key may escape it)
 * @param status the check's status
 * @param createdAt when the check was first filed
 * @param startedAt when it got its job and started its first step, or null
 * @param endedAt when it ended, or null while queued or running
 * @param steps each step's result, in order
 * @param log the log blob, or null until uploaded
 * @param outputs the run's outputs: an open union, kept as the record holds them
 * @param note a line saying why (a parse error, a skip by paths, a cancel's reason), or null
 */
public record CheckRecord(
    String repo,
    String ref,
    String commit,
    String baseCommit,
    String pull,
    String workflow,
    CheckStatus status,
    Instant createdAt,
    Instant startedAt,
    Instant endedAt,
    List<StepResult> steps,
    BlobRef log,
    List<JsonNode> outputs,
    String note) {

  /** The record's collection. */
  public static final String COLLECTION = "dev.knotless.check";

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** Checks the required fields and copies the lists. */
  public CheckRecord {
    require(repo, "repo");
    require(ref, "ref");
    require(commit, "commit");
    require(workflow, "workflow");
    require(status, "status");
    require(createdAt, "createdAt");
    steps = List.copyOf(steps == null ? List.of() : steps);
    outputs = List.copyOf(outputs == null ? List.of() : outputs);
  }

  /**
   * The lexicon's {@code imageOutput}, as an entry of {@code outputs}: an image a run left, under
   * the name the run gave it, uploaded as {@code image}.
   */
  public static ObjectNode imageOutput(String name, BlobRef image) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("$type", COLLECTION + "#imageOutput");
    o.put("name", name);
    o.set("image", image.toJson());
    return o;
  }

  /** The same record with another status, when it ended and a note; for filing it as ended. */
  public CheckRecord ended(
      CheckStatus newStatus, Instant at, List<StepResult> results, String why) {
    return new CheckRecord(
        repo,
        ref,
        commit,
        baseCommit,
        pull,
        workflow,
        newStatus,
        createdAt,
        startedAt,
        at,
        results,
        log,
        outputs,
        why);
  }

  /** The record as JSON, with its {@code $type}; instants in UTC with milliseconds. */
  public ObjectNode toJson() {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("$type", COLLECTION);
    n.put("repo", repo);
    n.put("ref", ref);
    n.put("commit", commit);
    putIf(n, "baseCommit", baseCommit);
    putIf(n, "pull", pull);
    n.put("workflow", workflow);
    n.put("status", status.wire());
    n.put("createdAt", TIME.format(createdAt));
    putIf(n, "startedAt", startedAt == null ? null : TIME.format(startedAt));
    putIf(n, "endedAt", endedAt == null ? null : TIME.format(endedAt));
    ArrayNode s = n.putArray("steps");
    for (StepResult r : steps) {
      ObjectNode o = s.addObject();
      o.put("name", r.name());
      o.put("status", r.status().wire());
      putIf(o, "startedAt", r.startedAt() == null ? null : TIME.format(r.startedAt()));
      putIf(o, "endedAt", r.endedAt() == null ? null : TIME.format(r.endedAt()));
      putIf(o, "note", r.note());
    }
    if (log != null) {
      n.set("log", log.toJson());
    }
    if (!outputs.isEmpty()) {
      ArrayNode out = n.putArray("outputs");
      outputs.forEach(o -> out.add(o.deepCopy()));
    }
    putIf(n, "note", note);
    return n;
  }

  /**
   * Reads a record's value.
   *
   * @throws IllegalArgumentException naming the field that is missing or wrong
   */
  public static CheckRecord fromJson(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a check record must be an object");
    }
    List<StepResult> steps = new ArrayList<>();
    JsonNode s = n.path("steps");
    if (!s.isMissingNode() && !s.isArray()) {
      throw new IllegalArgumentException("check record field steps must be a list");
    }
    for (int i = 0; i < s.size(); i++) {
      JsonNode o = s.get(i);
      String at = "steps[" + (i + 1) + "].";
      steps.add(
          new StepResult(
              text(o, "name", at, true),
              StepResult.Status.fromWire(text(o, "status", at, true)),
              time(o, "startedAt", at),
              time(o, "endedAt", at),
              text(o, "note", at, false)));
    }
    List<JsonNode> outputs = new ArrayList<>();
    n.path("outputs").forEach(outputs::add);
    return new CheckRecord(
        text(n, "repo", "", true),
        text(n, "ref", "", true),
        text(n, "commit", "", true),
        text(n, "baseCommit", "", false),
        text(n, "pull", "", false),
        text(n, "workflow", "", true),
        CheckStatus.fromWire(text(n, "status", "", true)),
        time(n, "createdAt", ""),
        time(n, "startedAt", ""),
        time(n, "endedAt", ""),
        steps,
        n.hasNonNull("log") ? BlobRef.fromJson(n.get("log")) : null,
        outputs,
        text(n, "note", "", false));
  }

  private static String text(JsonNode n, String field, String at, boolean required) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException("check record field " + at + field + " is missing");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException("check record field " + at + field + " must be a string");
    }
    return v.asText();
  }

  private static Instant time(JsonNode n, String field, String at) {
    String s = text(n, field, at, false);
    if (s == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "check record field " + at + field + " is not a date-time: \"" + s + "\"", e);
    }
  }

  private static void putIf(ObjectNode n, String field, String value) {
    if (value != null) {
      n.put(field, value);
    }
  }

  private static void require(Object v, String field) {
    if (v == null) {
      throw new IllegalArgumentException("a check record needs " + field);
    }
  }
}
