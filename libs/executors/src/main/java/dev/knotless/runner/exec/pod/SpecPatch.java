package dev.knotless.runner.exec.pod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An operator's JSON merge patch (RFC 7386) over every run pod's spec, for the pod fields the
 * runner has no setting of its own for (affinity, DNS, topology spread, a grace period, ...). It is
 * laid over the spec after the runner has filled it in: an object merges key by key, a value
 * replaces, a list replaces whole, and {@code null} removes the key.
 *
 * <p>A patch may not name a field that carries one of the runner's guarantees ({@link #PROTECTED}):
 * the sandbox, the security context, no service-account token, the run's own container (command,
 * environment, mounts) and volumes, no host namespace. Such a patch is refused when it is made,
 * with the field named, so a runner configured with one does not start; the runner's guarantees
 * always win over an operator's patch, never the other way. A workflow never supplies a patch.
 *
 * <p>Immutable: it holds its own copy of the patch and applies it to a copy of the spec.
 * Thread-safe.
 */
public final class SpecPatch {

  /** The top-level pod spec fields a patch may not set, each with the guarantee it carries. */
  public static final Map<String, String> PROTECTED = protectedFields();

  /** The patch that changes nothing. */
  public static final SpecPatch NONE = new SpecPatch(JsonNodeFactory.instance.objectNode());

  private final ObjectNode patch;

  private SpecPatch(ObjectNode patch) {
    this.patch = patch;
  }

  /**
   * The patch {@code json}, checked: a JSON object naming no {@link #PROTECTED} field. Null or an
   * empty object is {@link #NONE}.
   *
   * @throws IllegalArgumentException naming each field the patch may not set, or saying it is not
   *     an object; {@code name} is how the message calls the patch ("podSpecPatch")
   */
  public static SpecPatch of(JsonNode json, String name) {
    if (json == null || json.isNull() || json.isMissingNode()) {
      return NONE;
    }
    if (!json.isObject()) {
      throw new IllegalArgumentException(
          name + ": expected an object (a JSON merge patch over the pod's spec), got " + json);
    }
    List<String> refused = new ArrayList<>();
    for (Iterator<String> keys = json.fieldNames(); keys.hasNext(); ) {
      String key = keys.next();
      String why = PROTECTED.get(key);
      if (why != null) {
        refused.add(name + "." + key + ": " + why + ", so a patch may not set it");
      }
    }
    if (!refused.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", refused));
    }
    return json.isEmpty() ? NONE : new SpecPatch(((ObjectNode) json).deepCopy());
  }

  /** Whether this patch changes nothing. */
  public boolean isEmpty() {
    return patch.isEmpty();
  }

  /** The patch as JSON text. */
  public String json() {
    return patch.toString();
  }

  /** {@code spec} with this patch laid over it; {@code spec} itself is left as it was. */
  public ObjectNode applyTo(ObjectNode spec) {
    return (ObjectNode) merge(spec.deepCopy(), patch);
  }

  private static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? (ObjectNode) target
            : JsonNodeFactory.instance.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), merge(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SpecPatch other && patch.equals(other.patch);
  }

  @Override
  public int hashCode() {
    return patch.hashCode();
  }

  @Override
  public String toString() {
    return json();
  }

  private static Map<String, String> protectedFields() {
    Map<String, String> m = new LinkedHashMap<>();
    String token = "a run pod never holds a service-account token";
    String host = "a run pod shares no namespace with its node";
    m.put(
        "runtimeClassName",
        "the sandbox is chosen per run (runs.runtimeClassName, runs.trustedRuntimeClassName)");
    m.put("securityContext", "the run pod's security context (seccomp, its user) is the runner's");
    m.put("automountServiceAccountToken", token);
    m.put("serviceAccountName", token);
    m.put("serviceAccount", token);
    m.put(
        "containers", "the run's container, its command, environment and mounts are the runner's");
    m.put("initContainers", "no container but the run's runs in a run pod");
    m.put("ephemeralContainers", "no container but the run's runs in a run pod");
    m.put("volumes", "a run pod mounts its two emptyDirs and nothing else");
    m.put("hostNetwork", host);
    m.put("hostPID", host);
    m.put("hostIPC", host);
    m.put("hostUsers", host);
    m.put("enableServiceLinks", "no other service's address reaches a run's environment");
    m.put("restartPolicy", "a run pod is never restarted, which would run its steps again");
    m.put("shareProcessNamespace", "the pod's pause process reaps what steps leave behind");
    return java.util.Collections.unmodifiableMap(m);
  }
}
