package dev.knotless.runner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.workflow.Superseded;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a run queued in one process needs to be run in another: the repository, the ref and commit,
 * the workflow, the class and what the run was asked with. It holds no secret and no step: the
 * process that runs it reads the workflow from the commit and the secrets from its own file, with
 * the same planner the pass uses, so a queue row can never carry a value a step may not see.
 *
 * <p>Three kinds ({@link Kind}): a push's run; a pull's run, checked at the merge of its head into
 * the base tip; a merge-queue batch's run, checked at its pulls stacked in order on the base tip.
 * For the last two {@code ref} is the base branch, {@code base} the base tip, {@code commit} the
 * commit the run checks out (the merge or the stack's tip) and {@code pulls} the pulls merged, in
 * order. The process that runs one makes that commit again from the PDS and runs it only if it
 * comes out the same; whose code it is, it decides again from the records it reads itself.
 *
 * <p>As JSON it carries a {@code version}; a reader takes any version with the same major number
 * and ignores fields it does not know, so a rolling upgrade that adds a field loses no run. Version
 * 1.1 added {@code kind} and {@code pulls}; a 1.0 order is a push's. Immutable.
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
 * @param kind what the run checks: a push, a pull or a merge-queue batch
 * @param pulls the pulls merged into {@code base} to make {@code commit}, in order: one for a
 *     pull's run, one or more for a batch's, none for a push's
 * @param privateRepo whether the repository is private: read in its owner's space as a member, its
 *     steps counted as private minutes, its check and outputs filed only in that space
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
    String checkKey,
    Kind kind,
    List<Stacked> pulls,
    boolean privateRepo) {

  /** The format's version: {@code major.minor}; readers refuse only another major. */
  public static final String VERSION = "1.2";

  /** What a run checks. */
  public enum Kind {
    /** A push to {@code ref}, at {@code commit}. */
    PUSH,
    /** A pull into {@code ref}: its head merged into the base tip. */
    PULL,
    /** A merge-queue batch on {@code ref}: its pulls stacked in order on the base tip. */
    BATCH;

    /** Its name in JSON. */
    public String json() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One pull merged into a pull's or batch's run.
   *
   * @param uri the pull record's AT-URI
   * @param head the commit of its head the run merged
   * @param headRef its head branch, a full ref (it names the merge commit)
   */
  public record Stacked(String uri, String head, String headRef) {
    /** Checks every field, naming the first that is wrong. */
    public Stacked {
      if (uri == null || !uri.startsWith("at://") || uri.contains(" ")) {
        throw new IllegalArgumentException("pulls[].uri is not an AT-URI: " + uri);
      }
      if (head == null || !SHA.matcher(head).matches()) {
        throw new IllegalArgumentException("pulls[].head is not a commit id: " + head);
      }
      if (headRef == null || !headRef.startsWith("refs/heads/") || headRef.length() == 11) {
        throw new IllegalArgumentException(
            "pulls[].headRef is not a branch's full ref: " + headRef);
      }
    }
  }

  /** A push's order, of a private repository when {@code privateRepo}. */
  public RunOrder(
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
      String checkKey,
      boolean privateRepo) {
    this(
        label,
        ownerDid,
        repoKey,
        ref,
        commit,
        base,
        workflow,
        runClass,
        superseded,
        asked,
        checkKey,
        Kind.PUSH,
        List.of(),
        privateRepo);
  }

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
    Objects.requireNonNull(kind, "kind");
    pulls = List.copyOf(pulls);
    switch (kind) {
      case PUSH -> {
        if (!pulls.isEmpty()) {
          throw new IllegalArgumentException("pulls is not empty in a push's order");
        }
      }
      case PULL -> {
        if (pulls.size() != 1) {
          throw new IllegalArgumentException(
              "pulls holds " + pulls.size() + " pulls in a pull's order, not one");
        }
      }
      case BATCH -> {
        if (pulls.isEmpty()) {
          throw new IllegalArgumentException("pulls is empty in a batch's order");
        }
      }
    }
    if (kind != Kind.PUSH && base == null) {
      throw new IllegalArgumentException("base is missing in a " + kind.json() + "'s order");
    }
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
    o.put("kind", kind.json());
    if (privateRepo) {
      o.put("private", true);
    }
    if (!pulls.isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode ps = o.putArray("pulls");
      for (Stacked p : pulls) {
        ps.addObject().put("uri", p.uri()).put("head", p.head()).put("headRef", p.headRef());
      }
    }
    return o.toString();
  }

  /**
   * Reads an order.
   *
   * @throws IllegalArgumentException naming what is wrong: not JSON, another major version, a kind
   *     this reader does not run, a missing or malformed field
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
    // The kind first: an order of a kind this reader does not run is refused as that.
    Kind kind = kind(o);
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
        text(o, "checkKey"),
        kind,
        pulls(o),
        privateOf(o));
  }

  /** Whether the order's repository is private: orders before 1.2 carry no such field. */
  private static boolean privateOf(JsonNode o) {
    JsonNode p = o.get("private");
    if (p == null) {
      return false;
    }
    if (!p.isBoolean()) {
      throw new IllegalArgumentException("private is not true or false: " + p);
    }
    return p.asBoolean();
  }

  /** The order's kind: a 1.0 order has none, and is a push's. */
  private static Kind kind(JsonNode o) {
    JsonNode k = o.get("kind");
    if (k == null) {
      return Kind.PUSH;
    }
    for (Kind kind : Kind.values()) {
      if (k.isTextual() && kind.json().equals(k.asText())) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "kind is " + k + ", which this reader does not run (it runs push, pull and batch)");
  }

  private static List<Stacked> pulls(JsonNode o) {
    JsonNode ps = o.path("pulls");
    if (ps.isMissingNode() || ps.isNull()) {
      return List.of();
    }
    if (!ps.isArray()) {
      throw new IllegalArgumentException("pulls is not an array");
    }
    List<Stacked> out = new ArrayList<>();
    for (JsonNode p : ps) {
      if (!p.isObject()) {
        throw new IllegalArgumentException("pulls[" + out.size() + "] is not an object");
      }
      out.add(new Stacked(text(p, "uri"), text(p, "head"), text(p, "headRef")));
    }
    return out;
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
