package dev.knotless.runner.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.workflow.Superseded;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a run queued in one process needs to be run in another: the repository, the ref and commit,
 * the workflow, the class and what the run was asked with. It holds no secret and no step: the
 * process that runs it reads the workflow from the commit and the secrets from its own file, with
 * the same planner the pass uses, so a queue row can never carry a value a step may not see.
 *
 * <p>As JSON it carries a {@code version}; a reader takes any version with the same major number
 * and ignores fields it does not know, so a rolling upgrade that adds a field loses no run.
 * Immutable.
 *
 * @param label the repository as the runner names it, {@code <handle or did>/<name>}
 * @param ownerDid its owner's DID
 * @param repoKey its record key
 * @param ref the full ref the run checks
 * @param commit the commit checked out
 * @param base the ref's commit before this one, or null
 * @param workflow the workflow's name
 * @param runClass the run's class
 * @param superseded what a newer run of the workflow at the same ref does to this one
 * @param asked the variables a run asked for by name was asked with (empty for others)
 * @param checkKey the check's record key
 */
public record RunOrder(
    String label,
    String ownerDid,
    String repoKey,
    String ref,
    String commit,
    String base,
    String workflow,
    RunClass runClass,
    Superseded superseded,
    Map<String, String> asked,
    String checkKey) {

  /** The format's version: {@code major.minor}; readers refuse only another major. */
  public static final String VERSION = "1.0";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

  /** Checks every field, naming the first that is wrong. */
  public RunOrder {
    require(label, "label");
    require(ownerDid, "ownerDid");
    require(repoKey, "repoKey");
    require(ref, "ref");
    require(workflow, "workflow");
    require(checkKey, "checkKey");
    Objects.requireNonNull(runClass, "runClass");
    Objects.requireNonNull(superseded, "superseded");
    if (commit == null || !SHA.matcher(commit).matches()) {
      throw new IllegalArgumentException("commit is not a commit id: " + commit);
    }
    if (base != null && !SHA.matcher(base).matches()) {
      throw new IllegalArgumentException("base is not a commit id: " + base);
    }
    if (!ownerDid.startsWith("did:")) {
      throw new IllegalArgumentException("ownerDid is not a DID: " + ownerDid);
    }
    asked = Map.copyOf(asked);
  }

  private static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " is missing");
    }
  }

  /** The order as one line of JSON. */
  public String toJson() {
    ObjectNode o = JSON.createObjectNode();
    o.put("version", VERSION);
    o.put("label", label);
    o.put("ownerDid", ownerDid);
    o.put("repoKey", repoKey);
    o.put("ref", ref);
    o.put("commit", commit);
    if (base != null) {
      o.put("base", base);
    }
    o.put("workflow", workflow);
    o.put("runClass", runClass.name());
    o.put("superseded", superseded.name());
    ObjectNode a = o.putObject("asked");
    new java.util.TreeMap<>(asked).forEach(a::put);
    o.put("checkKey", checkKey);
    return o.toString();
  }

  /**
   * Reads an order.
   *
   * @throws IllegalArgumentException naming what is wrong: not JSON, another major version, a
   *     missing or malformed field
   */
  public static RunOrder fromJson(String json) {
    JsonNode o;
    try {
      o = JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("a run order that is not JSON: " + e.getMessage(), e);
    }
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("a run order that is not a JSON object");
    }
    String version = o.path("version").asText("");
    if (!version.equals(VERSION) && !version.startsWith(major(VERSION) + ".")) {
      throw new IllegalArgumentException(
          "a run order of version "
              + (version.isEmpty() ? "(none)" : version)
              + "; this reads "
              + major(VERSION)
              + ".x");
    }
    RunClass runClass;
    try {
      runClass = RunClass.valueOf(o.path("runClass").asText(""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("runClass is not a run class: " + o.path("runClass"));
    }
    Superseded superseded;
    try {
      superseded = Superseded.valueOf(o.path("superseded").asText(""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "superseded is not CANCEL or FINISH: " + o.path("superseded"));
    }
    Map<String, String> asked = new LinkedHashMap<>();
    JsonNode a = o.path("asked");
    if (!a.isMissingNode() && !a.isObject()) {
      throw new IllegalArgumentException("asked is not an object");
    }
    a.fields().forEachRemaining(e -> asked.put(e.getKey(), e.getValue().asText()));
    return new RunOrder(
        text(o, "label"),
        text(o, "ownerDid"),
        text(o, "repoKey"),
        text(o, "ref"),
        text(o, "commit"),
        o.hasNonNull("base") ? o.get("base").asText() : null,
        text(o, "workflow"),
        runClass,
        superseded,
        asked,
        text(o, "checkKey"));
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  private static String major(String version) {
    int dot = version.indexOf('.');
    return dot < 0 ? version : version.substring(0, dot);
  }
}
