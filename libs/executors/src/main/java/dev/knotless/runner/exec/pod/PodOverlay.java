package dev.knotless.runner.exec.pod;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the operator lays over every run pod so that it fits the cluster: the Secrets its image is
 * pulled with, the nodes it may land on and the taints it tolerates, its priority class, and a
 * patch over its spec for anything else ({@link SpecPatch}). All of it comes from the runner's own
 * configuration (the chart's {@code runs.*} values); a workflow chooses none of it. None of it
 * holds a secret: pull Secrets are named, never read. Immutable.
 *
 * @param imagePullSecrets names of Secrets in the runs' namespace the kubelet pulls with
 * @param nodeSelector labels a node must have to take a run pod
 * @param tolerations taints a run pod tolerates
 * @param priorityClassName the PriorityClass of run pods, or null for the cluster's default
 * @param specPatch laid over the spec last
 */
public record PodOverlay(
    List<String> imagePullSecrets,
    Map<String, String> nodeSelector,
    List<Toleration> tolerations,
    String priorityClassName,
    SpecPatch specPatch) {

  /** Nothing laid over the pod. */
  public static final PodOverlay NONE = new PodOverlay(List.of(), Map.of(), List.of(), null, null);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A Kubernetes object name (a DNS subdomain), as Secrets and PriorityClasses are named. */
  private static final Pattern NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private static final List<String> KEYS =
      List.of(
          "imagePullSecrets", "nodeSelector", "tolerations", "priorityClassName", "podSpecPatch");

  /** Copies the collections; a null patch is {@link SpecPatch#NONE}, a blank class none. */
  public PodOverlay {
    imagePullSecrets = List.copyOf(imagePullSecrets);
    nodeSelector = Map.copyOf(nodeSelector);
    tolerations = List.copyOf(tolerations);
    priorityClassName =
        priorityClassName == null || priorityClassName.isBlank() ? null : priorityClassName;
    specPatch = specPatch == null ? SpecPatch.NONE : specPatch;
  }

  /**
   * One taint a run pod tolerates, as a pod spec's toleration. Immutable.
   *
   * @param key the taint's key, or null with {@code Exists} for every taint
   * @param operator {@code Equal} or {@code Exists}
   * @param value the taint's value with {@code Equal}; null with {@code Exists}
   * @param effect {@code NoSchedule}, {@code PreferNoSchedule}, {@code NoExecute}, or null for all
   * @param tolerationSeconds how long a {@code NoExecute} taint is borne before eviction, or null
   *     for ever
   */
  public record Toleration(
      String key, String operator, String value, String effect, Long tolerationSeconds) {

    /** Checks the values as the API server would, so a wrong one stops the runner at start. */
    public Toleration {
      operator = operator == null ? "Equal" : operator;
      if (!operator.equals("Equal") && !operator.equals("Exists")) {
        throw new IllegalArgumentException("operator " + operator + ": expected Equal or Exists");
      }
      if (operator.equals("Exists") && value != null && !value.isEmpty()) {
        throw new IllegalArgumentException("value: none with operator Exists");
      }
      if (key == null && operator.equals("Equal")) {
        throw new IllegalArgumentException("key: needed with operator Equal");
      }
      if (effect != null
          && !Set.of("NoSchedule", "PreferNoSchedule", "NoExecute").contains(effect)) {
        throw new IllegalArgumentException(
            "effect " + effect + ": expected NoSchedule, PreferNoSchedule or NoExecute");
      }
      if (tolerationSeconds != null && !"NoExecute".equals(effect)) {
        throw new IllegalArgumentException("tolerationSeconds: only with effect NoExecute");
      }
    }
  }

  /** Whether this overlay changes nothing. */
  public boolean isEmpty() {
    return equals(NONE);
  }

  /**
   * The overlay in {@code json}: an object with any of {@code imagePullSecrets} (a list of names),
   * {@code nodeSelector} (labels to strings), {@code tolerations} (pod spec tolerations), {@code
   * priorityClassName} (a name, empty for none) and {@code podSpecPatch} (a {@link SpecPatch}).
   *
   * @throws IllegalArgumentException naming the field that is wrong, such as {@code
   *     tolerations[1].effect} or {@code podSpecPatch.securityContext}
   */
  public static PodOverlay fromJson(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("expected an object of " + String.join(", ", KEYS));
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(key + ": not a run pod setting");
      }
    }
    List<String> secrets = new ArrayList<>();
    JsonNode s = array(root, "imagePullSecrets");
    for (int i = 0; i < s.size(); i++) {
      secrets.add(name(s.get(i), "imagePullSecrets[" + i + "]"));
    }
    Map<String, String> selector = new LinkedHashMap<>();
    JsonNode n = root.path("nodeSelector");
    if (!n.isMissingNode() && !n.isNull()) {
      if (!n.isObject()) {
        throw new IllegalArgumentException("nodeSelector: expected an object of labels");
      }
      n.fields()
          .forEachRemaining(
              e -> selector.put(e.getKey(), text(e.getValue(), "nodeSelector." + e.getKey())));
    }
    List<Toleration> tolerations = new ArrayList<>();
    JsonNode t = array(root, "tolerations");
    for (int i = 0; i < t.size(); i++) {
      tolerations.add(toleration(t.get(i), "tolerations[" + i + "]"));
    }
    JsonNode p = root.path("priorityClassName");
    String priority = p.isMissingNode() || p.isNull() ? null : text(p, "priorityClassName");
    if (priority != null && !priority.isEmpty()) {
      name(p, "priorityClassName");
    }
    return new PodOverlay(
        secrets,
        selector,
        tolerations,
        priority,
        SpecPatch.of(root.get("podSpecPatch"), "podSpecPatch"));
  }

  private static Toleration toleration(JsonNode t, String where) {
    if (!t.isObject()) {
      throw new IllegalArgumentException(where + ": expected an object");
    }
    Set<String> fields = Set.of("key", "operator", "value", "effect", "tolerationSeconds");
    for (Iterator<String> it = t.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!fields.contains(f)) {
        throw new IllegalArgumentException(where + "." + f + ": not a field of a toleration");
      }
    }
    JsonNode seconds = t.path("tolerationSeconds");
    if (!seconds.isMissingNode() && !seconds.isNull() && !seconds.canConvertToExactIntegral()) {
      throw new IllegalArgumentException(where + ".tolerationSeconds: expected whole seconds");
    }
    try {
      return new Toleration(
          optional(t, "key", where),
          optional(t, "operator", where),
          optional(t, "value", where),
          optional(t, "effect", where),
          seconds.isMissingNode() || seconds.isNull() ? null : seconds.asLong());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + "." + e.getMessage(), e);
    }
  }

  private static String optional(JsonNode o, String field, String where) {
    JsonNode v = o.path(field);
    return v.isMissingNode() || v.isNull() ? null : text(v, where + "." + field);
  }

  private static JsonNode array(JsonNode root, String field) {
    JsonNode a = root.path(field);
    if (a.isMissingNode() || a.isNull()) {
      return JSON.createArrayNode();
    }
    if (!a.isArray()) {
      throw new IllegalArgumentException(field + ": expected a list");
    }
    return a;
  }

  private static String text(JsonNode v, String where) {
    if (!v.isTextual()) {
      throw new IllegalArgumentException(where + ": expected a string, got " + v);
    }
    return v.asText();
  }

  private static String name(JsonNode v, String where) {
    String s = text(v, where);
    if (s.length() > 253 || !NAME.matcher(s).matches()) {
      throw new IllegalArgumentException(where + " " + s + ": not a Kubernetes object name");
    }
    return s;
  }
}
