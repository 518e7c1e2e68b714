package dev.knotless.atproto.lexicon;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.RecordKeys;
import dev.knotless.atproto.Tid;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks record values against lexicon files, both ways: every field a value holds is one its
 * lexicon defines, with the type, format and bounds it gives, and every field the lexicon requires
 * is there. Stricter than the atproto rules, which let a record carry fields its lexicon does not
 * name: this is for checking what our own code writes.
 *
 * <p>Covers the lexicon types the {@code dev.knotless} records use: objects, strings (with {@code
 * minLength}, {@code maxLength} in UTF-8 bytes and the formats {@code datetime}, {@code at-uri},
 * {@code did}, {@code tid}, {@code record-key}, {@code uri}), integers with bounds, booleans,
 * arrays, bytes, blobs, refs, unions and unknown. {@code knownValues} are open, so not checked.
 * Immutable after {@link #load}; thread-safe.
 */
public final class LexiconValidator {
  private static final Pattern DID = Pattern.compile("did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]");

  private final Map<String, JsonNode> docs;

  private LexiconValidator(Map<String, JsonNode> docs) {
    this.docs = Map.copyOf(docs);
  }

  /** Reads every {@code *.json} under {@code root}, each keyed by the {@code id} it holds. */
  public static LexiconValidator load(Path root) throws IOException {
    Map<String, JsonNode> docs = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    for (Path f : files) {
      JsonNode doc = Json.read(Files.readAllBytes(f));
      docs.put(doc.path("id").asText(), doc);
    }
    return new LexiconValidator(docs);
  }

  /** The NSIDs of the loaded lexicons whose main definition is a record. */
  public Set<String> recordTypes() {
    Set<String> out = new HashSet<>();
    docs.forEach(
        (id, doc) -> {
          if ("record".equals(doc.path("defs").path("main").path("type").asText())) {
            out.add(id);
          }
        });
    return out;
  }

  /**
   * What is wrong with {@code value} as a record of {@code nsid}: each problem names the field's
   * path, such as {@code dev.knotless.check.steps[0].note}. Empty when it agrees. A {@code $type}
   * must name {@code nsid}.
   */
  public List<String> problems(String nsid, JsonNode value) {
    List<String> out = new ArrayList<>();
    JsonNode doc = docs.get(nsid);
    if (doc == null || !"record".equals(doc.path("defs").path("main").path("type").asText())) {
      out.add(nsid + ": no record lexicon by that name");
      return out;
    }
    if (value.has("$type") && !nsid.equals(value.path("$type").asText())) {
      out.add(nsid + ".$type is " + value.path("$type"));
    }
    object(nsid, nsid, doc.path("defs").path("main").path("record"), value, out);
    return out;
  }

  private void object(String nsid, String at, JsonNode schema, JsonNode v, List<String> out) {
    if (!v.isObject()) {
      out.add(at + " is not an object");
      return;
    }
    JsonNode props = schema.path("properties");
    for (JsonNode req : schema.path("required")) {
      if (!v.has(req.asText()) || v.get(req.asText()).isNull()) {
        out.add(at + "." + req.asText() + " is required but not written");
      }
    }
    v.fields()
        .forEachRemaining(
            e -> {
              if (e.getKey().equals("$type")) {
                return;
              }
              JsonNode p = props.get(e.getKey());
              if (p == null) {
                out.add(at + "." + e.getKey() + " is written but not in the lexicon");
              } else {
                field(nsid, at + "." + e.getKey(), p, e.getValue(), out);
              }
            });
  }

  private void field(String nsid, String at, JsonNode schema, JsonNode v, List<String> out) {
    String type = schema.path("type").asText();
    switch (type) {
      case "string" -> string(at, schema, v, out);
      case "integer" -> {
        if (!v.isIntegralNumber()) {
          out.add(at + " is not an integer: " + v);
        } else {
          bound(at, schema, "minimum", v.asLong(), true, out);
          bound(at, schema, "maximum", v.asLong(), false, out);
        }
      }
      case "boolean" -> {
        if (!v.isBoolean()) {
          out.add(at + " is not a boolean: " + v);
        }
      }
      case "array" -> {
        if (!v.isArray()) {
          out.add(at + " is not an array");
          return;
        }
        bound(at, schema, "minLength", v.size(), true, out);
        bound(at, schema, "maxLength", v.size(), false, out);
        for (int i = 0; i < v.size(); i++) {
          field(nsid, at + "[" + i + "]", schema.path("items"), v.get(i), out);
        }
      }
      case "bytes" -> {
        if (!v.isObject() || !v.path("$bytes").isTextual() || v.size() != 1) {
          out.add(at + " is not bytes ({\"$bytes\": …})");
        } else {
          int len = base64Length(v.path("$bytes").asText());
          bound(at, schema, "maxLength", len, false, out);
        }
      }
      case "blob" -> {
        if (!v.isObject()
            || !"blob".equals(v.path("$type").asText())
            || !v.path("ref").has("$link")
            || !v.path("mimeType").isTextual()
            || !v.path("size").isIntegralNumber()) {
          out.add(at + " is not a blob reference: " + v);
        }
      }
      case "object" -> object(nsid, at, schema, v, out);
      case "ref" -> {
        JsonNode def = def(nsid, schema.path("ref").asText());
        if (def == null) {
          out.add(at + " refers to " + schema.path("ref").asText() + ", which does not exist");
        } else {
          field(nsid, at, def, v, out);
        }
      }
      case "union" -> union(nsid, at, schema, v, out);
      case "unknown" -> {
        if (!v.isObject()) {
          out.add(at + " is not an object");
        }
      }
      default -> out.add(at + " has lexicon type " + type + ", which this check does not know");
    }
  }

  private void union(String nsid, String at, JsonNode schema, JsonNode v, List<String> out) {
    String t = v.path("$type").asText("");
    for (JsonNode r : schema.path("refs")) {
      String ref = r.asText();
      String full = ref.startsWith("#") ? nsid + ref : ref;
      if (t.equals(full) || t.equals(full.replace("#main", ""))) {
        field(nsid, at, def(nsid, ref), v, out);
        return;
      }
    }
    if (schema.path("closed").asBoolean(false) || t.isEmpty()) {
      out.add(at + " has $type '" + t + "', which the union does not list");
    }
  }

  /** The definition a ref names, relative to {@code nsid}; null if there is none. */
  private JsonNode def(String nsid, String ref) {
    int hash = ref.indexOf('#');
    String doc = hash == 0 ? nsid : hash < 0 ? ref : ref.substring(0, hash);
    String name = hash < 0 ? "main" : ref.substring(hash + 1);
    JsonNode d = docs.get(doc);
    return d == null || !d.path("defs").has(name) ? null : d.path("defs").path(name);
  }

  private static void string(String at, JsonNode schema, JsonNode v, List<String> out) {
    if (!v.isTextual()) {
      out.add(at + " is not a string: " + v);
      return;
    }
    String s = v.asText();
    int bytes = s.getBytes(StandardCharsets.UTF_8).length;
    bound(at, schema, "minLength", bytes, true, out);
    bound(at, schema, "maxLength", bytes, false, out);
    String format = schema.path("format").asText("");
    if (!format.isEmpty() && !formatOk(format, s)) {
      out.add(at + " is not a valid " + format + ": " + s);
    }
  }

  static boolean formatOk(String format, String s) {
    return switch (format) {
      case "datetime" -> datetime(s);
      case "at-uri" -> atUri(s);
      case "did" -> DID.matcher(s).matches() && s.length() <= 2048;
      case "tid" -> Tid.isValid(s);
      case "record-key" -> RecordKeys.isValid(s);
      case "uri" -> uri(s);
      default -> true;
    };
  }

  private static boolean datetime(String s) {
    try {
      OffsetDateTime.parse(s);
      return s.contains("T");
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  private static boolean atUri(String s) {
    try {
      AtUri.parse(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean uri(String s) {
    try {
      return new URI(s).getScheme() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static void bound(
      String at, JsonNode schema, String key, long actual, boolean min, List<String> out) {
    if (!schema.has(key)) {
      return;
    }
    long limit = schema.path(key).asLong();
    if (min ? actual < limit : actual > limit) {
      out.add(at + " is " + actual + ", " + (min ? "below " : "above ") + key + " " + limit);
    }
  }

  private static int base64Length(String b64) {
    String s = b64.replace("=", "");
    return (int) ((long) s.length() * 3 / 4);
  }
}
