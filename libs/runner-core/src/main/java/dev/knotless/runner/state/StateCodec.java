package dev.knotless.runner.state;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The state file's JSON: one top-level object per field, each keyed by repository, as the spec lays
 * it out, plus the runner's own {@code discovered} and {@code invited}. A repository is watched
 * when it has an entry under {@code repos}, even an empty one. Thread-safe.
 */
final class StateCodec {

  static final int VERSION = 1;
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Everything in one file. */
  record Snapshot(Map<String, RepoState> repos, RunnerState runner) {}

  private StateCodec() {}

  static byte[] write(Snapshot s) {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", VERSION);
    ObjectNode repos = root.putObject("repos");
    ObjectNode pulls = root.putObject("pulls");
    ObjectNode reruns = root.putObject("reruns");
    ObjectNode asked = root.putObject("asked");
    ObjectNode askedOnly = root.putObject("asked_only");
    ObjectNode passed = root.putObject("passed");
    ObjectNode dropped = root.putObject("dropped");
    ObjectNode wanted = root.putObject("wanted");
    ObjectNode used = root.putObject("used");
    ObjectNode usedPrivate = root.putObject("used_private");
    ObjectNode queues = root.putObject("queue");
    ObjectNode ejected = root.putObject("ejected");
    new TreeMap<>(s.repos())
        .forEach(
            (repo, st) -> {
              ObjectNode refs = repos.putObject(repo);
              st.refs().forEach(refs::put);
              if (!st.pulls().isEmpty()) {
                ObjectNode p = pulls.putObject(repo);
                st.pulls()
                    .forEach(
                        (uri, m) -> p.putObject(uri).put("head", m.head()).put("base", m.base()));
              }
              if (!st.rerun().isEmpty()) {
                reruns.put(repo, st.rerun());
              }
              if (!st.asked().isEmpty()) {
                st.asked().forEach(asked.putArray(repo)::add);
              }
              if (!st.askedOnly().isEmpty()) {
                ObjectNode o = askedOnly.putObject(repo);
                st.askedOnly().forEach((uri, wfs) -> wfs.forEach(o.putArray(uri)::add));
              }
              if (!st.passed().isEmpty()) {
                ArrayNode a = passed.putArray(repo);
                for (PassedRun r : st.passed()) {
                  a.addObject()
                      .put("tree", r.tree())
                      .put("workflow", r.workflow())
                      .put("check", r.check())
                      .put("subject", r.subject());
                }
              }
              if (!st.dropped().isEmpty()) {
                ArrayNode a = dropped.putArray(repo);
                for (DroppedRun d : st.dropped()) {
                  ObjectNode o =
                      a.addObject()
                          .put("subject", d.subject())
                          .put("commit", d.commit())
                          .put("base", d.base());
                  d.workflows().forEach(o.putArray("workflows")::add);
                }
              }
              if (!st.wanted().isEmpty()) {
                ObjectNode o = wanted.putObject(repo);
                st.wanted()
                    .forEach(
                        (ref, runs) -> {
                          ArrayNode a = o.putArray(ref);
                          for (WantedRun w : runs) {
                            ObjectNode v = a.addObject().put("workflow", w.workflow());
                            ObjectNode vars = v.putObject("variables");
                            new TreeMap<>(w.variables()).forEach(vars::put);
                          }
                        });
              }
              writeDays(used, repo, st.used());
              writeDays(usedPrivate, repo, st.usedPrivate());
              if (!st.queues().isEmpty()) {
                ObjectNode o = queues.putObject(repo);
                st.queues().forEach((ref, q) -> QueueCodec.write(o.putObject(ref), q));
              }
              if (!st.ejected().isEmpty()) {
                ObjectNode o = ejected.putObject(repo);
                st.ejected().forEach(o::put);
              }
            });
    s.runner().discovered().forEach(root.putArray("discovered")::add);
    root.put("invited", s.runner().invited());
    try {
      return JSON.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the state could not be written as JSON", e);
    }
  }

  private static void writeDays(ObjectNode field, String repo, Map<LocalDate, Long> days) {
    if (!days.isEmpty()) {
      ObjectNode o = field.putObject(repo);
      days.forEach((d, ms) -> o.put(d.toString(), ms));
    }
  }

  /**
   * Reads a file's bytes.
   *
   * @throws CorruptStateException naming the first field that is not as written
   */
  static Snapshot read(byte[] bytes) {
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (java.io.IOException e) {
      throw new CorruptStateException("it is not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new CorruptStateException("it is not a JSON object");
    }
    int version = root.path("version").asInt(-1);
    if (version != VERSION) {
      throw new CorruptStateException("its version is " + root.path("version") + ", not 1");
    }
    Map<String, RepoState> repos = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : fields(object(root, "repos", "repos"))) {
      String repo = e.getKey();
      Map<String, Long> refs = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> r : fields(object(e.getValue(), "repos." + repo))) {
        refs.put(r.getKey(), number(r.getValue(), "repos." + repo + "." + r.getKey()));
      }
      String at = "." + repo;
      Map<String, PullMark> pulls = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> p : fields(object(root.path("pulls"), repo, "pulls" + at))) {
        JsonNode m = p.getValue();
        pulls.put(
            p.getKey(),
            new PullMark(text(m.get("head"), "pulls" + at), text(m.get("base"), "pulls" + at)));
      }
      String rerun =
          root.path("reruns").has(repo) ? text(root.path("reruns").get(repo), "reruns" + at) : "";
      Set<String> asked = new LinkedHashSet<>(strings(root.path("asked").get(repo), "asked" + at));
      Map<String, Set<String>> askedOnly = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> o :
          fields(object(root.path("asked_only"), repo, "asked_only" + at))) {
        askedOnly.put(o.getKey(), new LinkedHashSet<>(strings(o.getValue(), "asked_only" + at)));
      }
      List<PassedRun> passed =
          objects(
              root.path("passed").get(repo),
              "passed" + at,
              n ->
                  new PassedRun(
                      text(n.get("tree"), "passed" + at),
                      text(n.get("workflow"), "passed" + at),
                      text(n.get("check"), "passed" + at),
                      text(n.get("subject"), "passed" + at)));
      List<DroppedRun> dropped =
          objects(
              root.path("dropped").get(repo),
              "dropped" + at,
              n ->
                  new DroppedRun(
                      text(n.get("subject"), "dropped" + at),
                      text(n.get("commit"), "dropped" + at),
                      text(n.get("base"), "dropped" + at),
                      strings(n.get("workflows"), "dropped" + at)));
      Map<String, List<WantedRun>> wanted = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> w :
          fields(object(root.path("wanted"), repo, "wanted" + at))) {
        wanted.put(
            w.getKey(),
            objects(
                w.getValue(),
                "wanted" + at,
                n -> {
                  Map<String, String> vars = new LinkedHashMap<>();
                  for (Map.Entry<String, JsonNode> v :
                      fields(object(n.get("variables"), "wanted" + at))) {
                    vars.put(v.getKey(), text(v.getValue(), "wanted" + at));
                  }
                  return new WantedRun(text(n.get("workflow"), "wanted" + at), vars);
                }));
      }
      repos.put(
          repo,
          new RepoState(
              refs,
              pulls,
              rerun,
              asked,
              askedOnly,
              passed,
              dropped,
              wanted,
              days(root.path("used"), repo, "used"),
              days(root.path("used_private"), repo, "used_private"),
              queues(root.path("queue"), repo),
              ejected(root.path("ejected"), repo)));
    }
    List<String> discovered = strings(root.get("discovered"), "discovered");
    String invited = root.has("invited") ? text(root.get("invited"), "invited") : "";
    return new Snapshot(repos, new RunnerState(discovered, invited));
  }

  private static Map<String, dev.knotless.runner.queue.QueueState> queues(
      JsonNode field, String repo) {
    Map<String, dev.knotless.runner.queue.QueueState> out = new LinkedHashMap<>();
    String where = "queue." + repo;
    for (Map.Entry<String, JsonNode> q : fields(object(field, repo, where))) {
      try {
        out.put(q.getKey(), QueueCodec.read(q.getKey(), object(q.getValue(), where)));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new CorruptStateException(where + "." + q.getKey() + ": " + e.getMessage());
      }
    }
    return out;
  }

  private static Map<String, String> ejected(JsonNode field, String repo) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : fields(object(field, repo, "ejected." + repo))) {
      out.put(e.getKey(), text(e.getValue(), "ejected." + repo));
    }
    return out;
  }

  private static TreeMap<LocalDate, Long> days(JsonNode field, String repo, String name) {
    TreeMap<LocalDate, Long> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> d : fields(object(field, repo, name + "." + repo))) {
      try {
        out.put(LocalDate.parse(d.getKey()), number(d.getValue(), name + "." + repo));
      } catch (DateTimeParseException e) {
        throw new CorruptStateException(
            name + "." + repo + " has a day that is not a date: " + d.getKey());
      }
    }
    return out;
  }

  private static JsonNode object(JsonNode parent, String key, String where) {
    JsonNode n = parent == null || parent.isMissingNode() ? null : parent.get(key);
    return n == null ? JSON.createObjectNode() : object(n, where);
  }

  private static JsonNode object(JsonNode n, String where) {
    if (n == null || !n.isObject()) {
      throw new CorruptStateException(where + " is not an object");
    }
    return n;
  }

  private static Iterable<Map.Entry<String, JsonNode>> fields(JsonNode n) {
    return () -> {
      Iterator<Map.Entry<String, JsonNode>> it = n.fields();
      return it;
    };
  }

  private static String text(JsonNode n, String where) {
    if (n == null || !n.isTextual()) {
      throw new CorruptStateException(where + " holds " + n + " where a string belongs");
    }
    return n.asText();
  }

  private static long number(JsonNode n, String where) {
    if (n == null || !n.canConvertToLong() || !n.isIntegralNumber()) {
      throw new CorruptStateException(where + " holds " + n + " where a whole number belongs");
    }
    return n.asLong();
  }

  private static List<String> strings(JsonNode n, String where) {
    return n == null ? List.of() : objects(n, where, v -> text(v, where));
  }

  private static <T> List<T> objects(JsonNode n, String where, Function<JsonNode, T> each) {
    if (n == null) {
      return List.of();
    }
    if (!n.isArray()) {
      throw new CorruptStateException(where + " is not a list");
    }
    List<T> out = new ArrayList<>();
    for (JsonNode v : n) {
      try {
        out.add(each.apply(v));
      } catch (IllegalArgumentException e) {
        throw new CorruptStateException(where + ": " + e.getMessage());
      }
    }
    return out;
  }

  /** A state file that is JSON but not the state file's shape. */
  static final class CorruptStateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CorruptStateException(String message) {
      super(message);
    }
  }
}
