package dev.knotless.runner.workflow;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.knotless.atproto.Printable;
import dev.knotless.runner.workflow.Fields.Bad;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Parses one workflow file. Stateless and thread-safe. */
final class WorkflowParser {

  /** A file that does not parse, with the name its check is filed under. */
  static final class Invalid extends Exception {
    final String name;
    final String field;

    Invalid(String name, String field, String problem) {
      super(problem, null, false, false);
      this.name = name;
      this.field = field;
    }
  }

  /** Files larger than this are refused before parsing. */
  static final int MAX_BYTES = 1 << 20;

  static final int MAX_NAME_CHARS = 100;

  static final Set<String> TOP_KEYS =
      Set.of(
          "name",
          "on",
          "image",
          "env",
          "secrets",
          "cache",
          "superseded",
          "runners",
          "queue",
          "steps");
  static final Set<String> ON_KEYS = Set.of("push", "pull", "asked");
  static final Set<String> PUSH_KEYS = Set.of("refs", "paths");
  static final Set<String> PULL_KEYS = Set.of("base", "paths");
  static final Set<String> ASKED_KEYS = Set.of("refs", "commit");
  static final Set<String> STEP_KEYS = Set.of("name", "run", "uses", "secrets", "on", "timeout");
  static final Set<String> STEP_ON_KEYS = Set.of("refs");

  private static final Pattern DID = Pattern.compile("did:[a-z]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._%-]");

  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private WorkflowParser() {}

  static Workflow parse(String file, byte[] content) throws Invalid {
    String fallbackName = stem(file);
    if (content.length > MAX_BYTES) {
      throw new Invalid(
          fallbackName, "", "is " + content.length + " bytes, more than " + MAX_BYTES + " allowed");
    }
    JsonNode root = read(file, content, fallbackName);
    if (root == null || root.isNull() || root.isMissingNode()) {
      throw new Invalid(fallbackName, "", "is empty");
    }
    if (!root.isObject()) {
      throw new Invalid(fallbackName, "", "must be a mapping of fields, not " + Fields.kind(root));
    }
    String name = fallbackName;
    try {
      String given = Fields.string(root, "name", "");
      if (given != null) {
        checkName(given);
        name = given;
      }
      return build(file, name, root);
    } catch (Bad b) {
      throw new Invalid(name, b.field, b.getMessage());
    }
  }

  static JsonNode read(String file, byte[] content, String name) throws Invalid {
    boolean json = file.endsWith(".json");
    try (JsonParser p = (json ? JSON : YAML).createParser(content)) {
      Iterator<JsonNode> docs = (json ? JSON : YAML).readValues(p, JsonNode.class);
      if (!docs.hasNext()) {
        return null;
      }
      JsonNode first = docs.next();
      if (docs.hasNext()) {
        throw new Invalid(name, "", "holds more than one document; a workflow is one");
      }
      return first;
    } catch (RuntimeException | IOException e) {
      Throwable cause = e instanceof RuntimeException && e.getCause() != null ? e.getCause() : e;
      String what = cause instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : null;
      String where = "";
      if (cause instanceof JsonProcessingException jpe && jpe.getLocation() != null) {
        where =
            " at line "
                + jpe.getLocation().getLineNr()
                + ", column "
                + jpe.getLocation().getColumnNr();
      }
      throw new Invalid(
          name, "", "is not valid " + (json ? "JSON" : "YAML") + where + ": " + firstLine(what));
    }
  }

  private static Workflow build(String file, String name, JsonNode root) {
    Fields.onlyKeys(root, "", TOP_KEYS);
    JsonNode on = Fields.object(root, "on", "");
    if (on == null) {
      throw new Bad("on", "is missing: a workflow must say when it runs (push, pull or asked)");
    }
    Fields.onlyKeys(on, "on", ON_KEYS);
    Triggers.Push push = null;
    if (on.has("push")) {
      JsonNode n = trigger(on, "push", PUSH_KEYS);
      push =
          new Triggers.Push(
              Fields.list(n, "refs", "on.push", Glob::ref, true),
              Fields.list(n, "paths", "on.push", Glob::path, true));
    }
    Triggers.Pull pull = null;
    if (on.has("pull")) {
      JsonNode n = trigger(on, "pull", PULL_KEYS);
      pull =
          new Triggers.Pull(
              Fields.list(n, "base", "on.pull", Glob::ref, true),
              Fields.list(n, "paths", "on.pull", Glob::path, true));
    }
    Triggers.Asked asked = null;
    if (on.has("asked")) {
      JsonNode n = trigger(on, "asked", ASKED_KEYS);
      asked =
          new Triggers.Asked(
              Fields.list(n, "refs", "on.asked", Glob::ref, true),
              Fields.list(n, "commit", "on.asked", Glob::path, true));
    }
    if (push == null && pull == null && asked == null) {
      throw new Bad("on", "names no trigger: give push, pull or asked");
    }
    String image = Fields.string(root, "image", "");
    if (image != null && image.isBlank()) {
      throw new Bad("image", "may not be empty");
    }
    String imageProblem = image == null ? null : ImageNames.problem(image).orElse(null);
    if (imageProblem != null) {
      // Refused here, before any daemon is asked: docker's client chokes on some such names.
      throw new Bad("image", Printable.quote(image) + " " + imageProblem);
    }
    List<String> secrets = Fields.list(root, "secrets", "", WorkflowParser::envName, false);
    Map<String, String> env = env(root, secrets);
    List<String> cache = Fields.list(root, "cache", "", WorkflowParser::cachePath, false);
    List<String> runners = Fields.list(root, "runners", "", WorkflowParser::did, false);
    Superseded superseded = superseded(root);
    boolean preflight = queue(root);
    checkUnique(secrets, "secrets");
    List<Step> steps = steps(root, secrets, true);
    return new Workflow(
        file,
        name,
        push,
        pull,
        asked,
        image,
        env,
        secrets,
        cache,
        superseded,
        runners,
        preflight,
        steps);
  }

  private static JsonNode trigger(JsonNode on, String key, Set<String> keys) {
    JsonNode n = on.get(key);
    // "push:" with nothing after it is YAML null: the trigger with no filters.
    if (n.isNull()) {
      return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }
    n = Fields.object(on, key, "on");
    Fields.onlyKeys(n, "on." + key, keys);
    return n;
  }

  private static Map<String, String> env(JsonNode root, List<String> secrets) {
    JsonNode n = Fields.object(root, "env", "");
    Map<String, String> env = new LinkedHashMap<>();
    if (n == null) {
      return env;
    }
    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String field = "env." + e.getKey();
      String problem = EnvNames.problem(e.getKey());
      if (problem != null) {
        throw new Bad(field, problem);
      }
      if (secrets.contains(e.getKey())) {
        throw new Bad(field, "is also listed in secrets; a name is one or the other");
      }
      JsonNode v = e.getValue();
      // Numbers and booleans are taken as YAML wrote them back; quote a value to keep it exact.
      if (!(v.isTextual() || v.isNumber() || v.isBoolean())) {
        throw new Bad(field, "must be a string, not " + Fields.kind(v));
      }
      if (v.asText().indexOf('\0') >= 0) {
        throw new Bad(field, "may not hold a NUL character");
      }
      env.put(e.getKey(), v.asText());
    }
    return env;
  }

  private static Superseded superseded(JsonNode root) {
    String s = Fields.string(root, "superseded", "");
    if (s == null) {
      return Superseded.CANCEL;
    }
    for (Superseded v : Superseded.values()) {
      if (v.wire().equals(s)) {
        return v;
      }
    }
    throw new Bad("superseded", "must be cancel or finish, not \"" + s + "\"");
  }

  private static boolean queue(JsonNode root) {
    String s = Fields.string(root, "queue", "");
    if (s == null) {
      return false;
    }
    if (!s.equals("first")) {
      throw new Bad("queue", "may only be first, not \"" + s + "\"");
    }
    return true;
  }

  /**
   * The steps of a workflow, or with {@code usesAllowed} false of a step file (whose steps may not
   * use other step files, so shared steps never loop).
   */
  static List<Step> steps(JsonNode root, List<String> secrets, boolean usesAllowed) {
    JsonNode n = root.get("steps");
    if (n == null || n.isNull()) {
      throw new Bad("steps", "is missing: a workflow needs at least one step");
    }
    if (!n.isArray()) {
      throw new Bad("steps", "must be a list of steps, not " + Fields.kind(n));
    }
    if (n.isEmpty()) {
      throw new Bad("steps", "is empty: a workflow needs at least one step");
    }
    List<Step> steps = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < n.size(); i++) {
      String field = "steps[" + (i + 1) + "]";
      JsonNode s = n.get(i);
      if (!s.isObject()) {
        throw new Bad(field, "must be a mapping with run, not " + Fields.kind(s));
      }
      Fields.onlyKeys(s, field, STEP_KEYS);
      String run = Fields.string(s, "run", field);
      String usesText = Fields.string(s, "uses", field);
      Uses uses = null;
      if (usesText != null) {
        if (!usesAllowed) {
          throw new Bad(
              Fields.join(field, "uses"),
              "a step file's steps may not use other step files, so shared steps never loop");
        }
        if (run != null) {
          throw new Bad(field, "has both run and uses: a step does one or the other");
        }
        List<String> passed = Fields.list(s, "secrets", field, WorkflowParser::envName, false);
        for (String p : passed) {
          if (!secrets.contains(p)) {
            throw new Bad(
                Fields.join(field, "secrets"),
                p + " is not in the workflow's secrets, so it cannot be passed");
          }
        }
        try {
          uses = Uses.parse(usesText, passed);
        } catch (IllegalArgumentException e) {
          throw new Bad(Fields.join(field, "uses"), e.getMessage());
        }
        run = "";
      } else if (s.has("secrets")) {
        throw new Bad(
            Fields.join(field, "secrets"),
            "only a uses step passes secrets; a run step sees every secret the workflow gets");
      } else if (run == null || run.isBlank()) {
        throw new Bad(Fields.join(field, "run"), "is missing: a step runs a script");
      }
      String name = Fields.string(s, "name", field);
      if (name == null) {
        name = "step " + (i + 1);
      } else if (name.isBlank()) {
        throw new Bad(Fields.join(field, "name"), "may not be empty");
      }
      if (!names.add(name)) {
        throw new Bad(
            Fields.join(field, "name"), "\"" + name + "\" is the name of an earlier step");
      }
      List<Glob> refs = List.of();
      JsonNode on = Fields.object(s, "on", field);
      if (on != null) {
        Fields.onlyKeys(on, field + ".on", STEP_ON_KEYS);
        refs = Fields.list(on, "refs", field + ".on", Glob::ref, true);
      }
      steps.add(new Step(name, run, refs, timeout(s, field), uses, List.of(), null));
    }
    return steps;
  }

  private static int timeout(JsonNode step, String field) {
    JsonNode t = step.get("timeout");
    if (t == null || t.isNull()) {
      return 0;
    }
    if (!t.canConvertToInt() || !t.isIntegralNumber() || t.asInt() <= 0) {
      throw new Bad(
          Fields.join(field, "timeout"),
          "must be a whole number of seconds above 0, not " + Fields.kind(t));
    }
    return t.asInt();
  }

  private static void checkName(String name) {
    if (name.isBlank()) {
      throw new Bad("name", "may not be empty");
    }
    if (name.length() > MAX_NAME_CHARS) {
      throw new Bad("name", "is " + name.length() + " characters, more than " + MAX_NAME_CHARS);
    }
    if (name.chars().anyMatch(Character::isISOControl)) {
      throw new Bad("name", "may not hold control characters");
    }
  }

  private static void checkUnique(List<String> values, String field) {
    Set<String> seen = new HashSet<>();
    for (String v : values) {
      if (!seen.add(v)) {
        throw new Bad(field, v + " is listed twice");
      }
    }
  }

  static String envName(String s) {
    String problem = EnvNames.problem(s);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    return s;
  }

  private static String cachePath(String s) {
    if (s.isBlank()) {
      throw new IllegalArgumentException("a cache path may not be empty");
    }
    for (String seg : s.split("/")) {
      if (seg.equals("..")) {
        throw new IllegalArgumentException("a cache path may not hold ..");
      }
    }
    return s;
  }

  private static String did(String s) {
    if (!DID.matcher(s).matches()) {
      throw new IllegalArgumentException("\"" + s + "\" is not a DID, such as did:plc:...");
    }
    return s;
  }

  static String stem(String file) {
    String base = file.substring(file.lastIndexOf('/') + 1);
    int dot = base.lastIndexOf('.');
    return dot > 0 ? base.substring(0, dot) : base;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
