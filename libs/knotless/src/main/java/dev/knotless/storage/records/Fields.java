package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.storage.RecordFormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Field readers shared by the record parsers; each failure names the record and the field. */
final class Fields {
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

  private Fields() {}

  static ObjectNode object(String uri, JsonNode value) throws RecordFormatException {
    if (value == null || !value.isObject()) {
      throw new RecordFormatException(uri, "the record is not a JSON object");
    }
    return (ObjectNode) value;
  }

  static String text(String uri, JsonNode v, String field) throws RecordFormatException {
    JsonNode n = v.get(field);
    if (n == null || !n.isTextual() || n.asText().isEmpty()) {
      throw new RecordFormatException(uri, "field '" + field + "' is missing or not a string");
    }
    return n.asText();
  }

  static String optionalText(String uri, JsonNode v, String field) throws RecordFormatException {
    JsonNode n = v.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new RecordFormatException(uri, "field '" + field + "' is not a string");
    }
    return n.asText();
  }

  static String sha(String uri, JsonNode v, String field, boolean required)
      throws RecordFormatException {
    String s = required ? text(uri, v, field) : optionalText(uri, v, field);
    if (s != null && !SHA.matcher(s).matches()) {
      throw new RecordFormatException(
          uri, "field '" + field + "' is not a lowercase hex object id: " + s);
    }
    return s;
  }

  static long integer(String uri, JsonNode v, String field) throws RecordFormatException {
    JsonNode n = v.get(field);
    if (n == null || !n.isIntegralNumber()) {
      throw new RecordFormatException(uri, "field '" + field + "' is missing or not an integer");
    }
    return n.asLong();
  }

  static List<String> shas(String uri, JsonNode v, String field) throws RecordFormatException {
    return texts(
        uri,
        v,
        field,
        e -> e.isTextual() && SHA.matcher(e.asText()).matches(),
        "something that is not a commit id");
  }

  static List<String> strings(String uri, JsonNode v, String field) throws RecordFormatException {
    return texts(uri, v, field, JsonNode::isTextual, "a non-string");
  }

  /**
   * An optional array of strings, each of which must pass {@code ok}; {@code what} names a bad one.
   */
  private static List<String> texts(
      String uri, JsonNode v, String field, java.util.function.Predicate<JsonNode> ok, String what)
      throws RecordFormatException {
    JsonNode n = v.get(field);
    if (n == null || n.isNull()) {
      return List.of();
    }
    if (!n.isArray()) {
      throw new RecordFormatException(uri, "field '" + field + "' is not an array");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode e : n) {
      if (!ok.test(e)) {
        throw new RecordFormatException(uri, "field '" + field + "' holds " + what + ": " + e);
      }
      out.add(e.asText());
    }
    return List.copyOf(out);
  }

  static ArrayNode array(List<String> values) {
    ArrayNode a = NODES.arrayNode();
    values.forEach(a::add);
    return a;
  }
}
