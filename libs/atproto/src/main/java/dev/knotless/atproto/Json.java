package dev.knotless.atproto;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON trees read and written with Jackson's streaming parser and generator alone.
 *
 * <p>The storage helper is a new JVM for every git operation, and a cold {@code ObjectMapper} costs
 * it 75 to 250 ms of class loading and set-up before the first byte is parsed; the tree classes and
 * the streaming layer cost a fifth of that. Everything the atproto and storage code reads or writes
 * is a tree, so nothing needs the data-binding machinery.
 *
 * <p>Stricter than {@code ObjectMapper.readTree}, as befits replies from servers we do not trust: a
 * field named twice, content after the value and an empty document are errors, not a silent choice.
 */
public final class Json {

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build())
          .build();

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Json() {}

  /** A new, empty object. */
  public static ObjectNode object() {
    return NODES.objectNode();
  }

  /** The factory for single values (text, numbers, booleans). */
  public static JsonNodeFactory nodes() {
    return NODES;
  }

  /** The one JSON value in {@code bytes} (UTF-8). */
  public static JsonNode read(byte[] bytes) throws IOException {
    try (JsonParser p = FACTORY.createParser(bytes)) {
      return whole(p);
    }
  }

  /** The one JSON value in {@code text}. */
  public static JsonNode read(String text) throws IOException {
    try (JsonParser p = FACTORY.createParser(text)) {
      return whole(p);
    }
  }

  /** {@code node} as compact UTF-8 JSON. */
  public static byte[] write(JsonNode node) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      write(g, node);
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON to memory failed", e);
    }
    return out.toByteArray();
  }

  /** {@code node} as compact JSON text. */
  public static String text(JsonNode node) {
    return new String(write(node), StandardCharsets.UTF_8);
  }

  private static JsonNode whole(JsonParser p) throws IOException {
    if (p.nextToken() == null) {
      throw new IOException("no JSON value: the document is empty");
    }
    JsonNode node = value(p);
    if (p.nextToken() != null) {
      throw new IOException(
          "more after the JSON value, at line "
              + p.currentLocation().getLineNr()
              + " column "
              + p.currentLocation().getColumnNr());
    }
    return node;
  }

  private static JsonNode value(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT:
        ObjectNode object = NODES.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          if (object.replace(name, value(p)) != null) {
            throw new IOException("the field \"" + name + "\" is given twice in one object");
          }
        }
        return object;
      case START_ARRAY:
        ArrayNode array = NODES.arrayNode();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          array.add(value(p));
        }
        return array;
      case VALUE_STRING:
        return NODES.textNode(p.getText());
      case VALUE_NUMBER_INT:
        switch (p.getNumberType()) {
          case INT:
            return NODES.numberNode(p.getIntValue());
          case LONG:
            return NODES.numberNode(p.getLongValue());
          default:
            return NODES.numberNode(p.getBigIntegerValue());
        }
      case VALUE_NUMBER_FLOAT:
        return NODES.numberNode(p.getDoubleValue());
      case VALUE_TRUE:
        return NODES.booleanNode(true);
      case VALUE_FALSE:
        return NODES.booleanNode(false);
      case VALUE_NULL:
        return NODES.nullNode();
      default:
        throw new IOException("unexpected " + t + " in JSON");
    }
  }

  private static void write(JsonGenerator g, JsonNode node) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT:
        g.writeStartObject();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> field = it.next();
          if (!field.getValue().isMissingNode()) {
            g.writeFieldName(field.getKey());
            write(g, field.getValue());
          }
        }
        g.writeEndObject();
        break;
      case ARRAY:
        g.writeStartArray();
        for (JsonNode item : node) {
          write(g, item);
        }
        g.writeEndArray();
        break;
      case STRING:
        g.writeString(node.textValue());
        break;
      case BOOLEAN:
        g.writeBoolean(node.booleanValue());
        break;
      case NULL:
        g.writeNull();
        break;
      case NUMBER:
        switch (node.numberType()) {
          case INT:
            g.writeNumber(node.intValue());
            break;
          case LONG:
            g.writeNumber(node.longValue());
            break;
          case BIG_INTEGER:
            g.writeNumber(node.bigIntegerValue());
            break;
          case BIG_DECIMAL:
            g.writeNumber(node.decimalValue());
            break;
          case FLOAT:
            g.writeNumber(node.floatValue());
            break;
          default:
            g.writeNumber(node.doubleValue());
        }
        break;
      case BINARY:
        g.writeBinary(node.binaryValue());
        break;
      default:
        throw new IllegalArgumentException("cannot write a " + node.getNodeType() + " as JSON");
    }
  }
}
