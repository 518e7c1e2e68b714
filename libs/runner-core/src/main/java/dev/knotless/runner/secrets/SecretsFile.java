package dev.knotless.runner.secrets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.knotless.runner.workflow.EnvNames;
import dev.knotless.runner.workflow.Glob;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operator's secrets file ({@code --secrets}): for each repository label, exactly as given on
 * the command line, the secrets granted to it. The format is in docs/secrets.md: a JSON object (or
 * YAML of the same shape) of labels, each an object of secret names, each a string value for every
 * ref or {@code {"value": "...", "refs": ["refs/heads/main", "refs/tags/v*"]}}.
 *
 * <p>Immutable and thread-safe. Nothing here logs or prints a value: errors name where the problem
 * is, and {@link #toString()} names only labels.
 */
public final class SecretsFile {

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .build();
  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final Map<String, Map<String, SecretGrant>> byLabel;
  private final boolean yaml;

  private SecretsFile(Map<String, Map<String, SecretGrant>> byLabel, boolean yaml) {
    this.byLabel = byLabel;
    this.yaml = yaml;
  }

  /** A file granting nothing. */
  public static SecretsFile empty() {
    return new SecretsFile(Map.of(), false);
  }

  /**
   * Parses the file's content: JSON if it starts with {@code {}, else YAML.
   *
   * @param source names the file in errors
   * @throws SecretsFileException naming what is wrong and where, never a value
   */
  public static SecretsFile parse(byte[] content, String source) throws SecretsFileException {
    boolean yaml = !startsWithBrace(content);
    JsonNode root;
    try {
      root = (yaml ? YAML : JSON).readTree(content);
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null
              ? ""
              : " at line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr();
      String what =
          e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")
              ? ": a key appears twice"
              : "";
      throw new SecretsFileException(
          source + " is not valid " + (yaml ? "YAML" : "JSON") + where + what);
    } catch (IOException e) {
      throw new SecretsFileException(source + " cannot be parsed: " + e.getClass().getSimpleName());
    }
    if (root == null || root.isNull() || root.isMissingNode()) {
      return new SecretsFile(Map.of(), yaml);
    }
    if (!root.isObject()) {
      throw new SecretsFileException(
          source + " must be an object keyed by repository label, not " + kind(root));
    }
    Map<String, Map<String, SecretGrant>> byLabel = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> labels = root.fields();
    while (labels.hasNext()) {
      Map.Entry<String, JsonNode> l = labels.next();
      String at = source + ": \"" + l.getKey() + "\"";
      if (!l.getValue().isObject()) {
        throw new SecretsFileException(
            at + " must be an object of secret names, not " + kind(l.getValue()));
      }
      Map<String, SecretGrant> grants = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> secrets = l.getValue().fields();
      while (secrets.hasNext()) {
        Map.Entry<String, JsonNode> s = secrets.next();
        grants.put(s.getKey(), grant(at + "." + s.getKey(), s.getKey(), s.getValue()));
      }
      byLabel.put(l.getKey(), Collections.unmodifiableMap(grants));
    }
    return new SecretsFile(Collections.unmodifiableMap(byLabel), yaml);
  }

  private static SecretGrant grant(String at, String name, JsonNode n) throws SecretsFileException {
    String problem = EnvNames.problem(name);
    if (problem != null) {
      throw new SecretsFileException(at + ": " + problem);
    }
    if (n.isTextual()) {
      return new SecretGrant(name, n.asText(), List.of());
    }
    if (!n.isObject()) {
      throw new SecretsFileException(
          at + " must be a string or {\"value\": ..., \"refs\": [...]}, not " + kind(n));
    }
    Iterator<String> keys = n.fieldNames();
    while (keys.hasNext()) {
      String k = keys.next();
      if (!Set.of("value", "refs").contains(k)) {
        throw new SecretsFileException(at + "." + k + " is not a known key (value, refs)");
      }
    }
    JsonNode value = n.get("value");
    if (value == null || !value.isTextual()) {
      throw new SecretsFileException(
          at + ".value must be a string, not " + (value == null ? "missing" : kind(value)));
    }
    List<Glob> refs = new ArrayList<>();
    JsonNode r = n.get("refs");
    if (r != null) {
      if (!r.isArray() || r.isEmpty()) {
        throw new SecretsFileException(
            at + ".refs must be a non-empty list of ref globs, not " + kind(r));
      }
      for (int i = 0; i < r.size(); i++) {
        if (!r.get(i).isTextual()) {
          throw new SecretsFileException(at + ".refs[" + (i + 1) + "] must be a string");
        }
        try {
          refs.add(Glob.ref(r.get(i).asText()));
        } catch (IllegalArgumentException e) {
          throw new SecretsFileException(at + ".refs[" + (i + 1) + "]: " + e.getMessage());
        }
      }
    }
    return new SecretGrant(name, value.asText(), refs);
  }

  /** The grants to the repository with this label, by secret name; empty if none. */
  public Map<String, SecretGrant> grants(String label) {
    return byLabel.getOrDefault(label, Map.of());
  }

  /** The labels the file grants to. */
  public Set<String> labels() {
    return byLabel.keySet();
  }

  /** This file without the label's grants, for a repository found deleted. */
  public SecretsFile withoutLabel(String label) {
    Map<String, Map<String, SecretGrant>> rest = new LinkedHashMap<>(byLabel);
    rest.remove(label);
    return new SecretsFile(Collections.unmodifiableMap(rest), yaml);
  }

  /**
   * The file's content in the format it was read in (comments are not kept). Holds every value:
   * write it only to the secrets file.
   */
  public byte[] toBytes() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, Map<String, SecretGrant>> l : byLabel.entrySet()) {
      ObjectNode label = root.putObject(l.getKey());
      for (SecretGrant g : l.getValue().values()) {
        if (g.refs().isEmpty()) {
          label.put(g.name(), g.value());
        } else {
          ObjectNode o = label.putObject(g.name());
          o.put("value", g.value());
          g.refs().forEach(ref -> o.withArray("refs").add(ref.pattern()));
        }
      }
    }
    try {
      return (yaml ? YAML : JSON).writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings always serialises", e);
    }
  }

  private static boolean startsWithBrace(byte[] content) {
    for (byte b : content) {
      if (b == '{') {
        return true;
      }
      if (b != ' '
          && b != '\t'
          && b != '\n'
          && b != '\r'
          && b != (byte) 0xEF
          && b != (byte) 0xBB
          && b != (byte) 0xBF) {
        return false;
      }
    }
    return false;
  }

  /** The kind of a node, never its content. */
  private static String kind(JsonNode n) {
    return switch (n.getNodeType()) {
      case OBJECT -> "an object";
      case ARRAY -> "a list";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "something else";
    };
  }

  @Override
  public String toString() {
    return "SecretsFile" + byLabel.keySet();
  }
}
