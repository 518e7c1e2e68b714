package dev.knotless.runner.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Typed reads of a workflow's fields, each failing with the field's path. Not thread-safe. */
final class Fields {

  /** A field that is not as the format says. */
  static final class Bad extends RuntimeException {
    final String field;

    Bad(String field, String problem) {
      super(problem, null, false, false);
      this.field = field;
    }
  }

  private Fields() {}

  static String join(String parent, String key) {
    return parent.isEmpty() ? key : parent + "." + key;
  }

  /** Fails on a key the object may not have, naming the ones it may. */
  static void onlyKeys(JsonNode obj, String field, Set<String> allowed) {
    Iterator<String> names = obj.fieldNames();
    while (names.hasNext()) {
      String k = names.next();
      if (!allowed.contains(k)) {
        throw new Bad(
            join(field, k),
            "unknown key; "
                + (field.isEmpty() ? "a workflow" : field)
                + " may hold "
                + String.join(", ", allowed.stream().sorted().toList()));
      }
    }
  }

  /** The object at {@code key}, or null if absent or null. */
  static JsonNode object(JsonNode parent, String key, String field) {
    JsonNode n = parent.get(key);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw new Bad(join(field, key), "must be a mapping, not " + kind(n));
    }
    return n;
  }

  /** The string at {@code key}, or null if absent. */
  static String string(JsonNode parent, String key, String field) {
    JsonNode n = parent.get(key);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new Bad(join(field, key), "must be a string, not " + kind(n));
    }
    return n.asText();
  }

  /** A list of strings, or a single string read as a list of one; empty if absent. */
  static <T> List<T> list(
      JsonNode parent, String key, String field, Function<String, T> convert, boolean oneAllowed) {
    JsonNode n = parent.get(key);
    String path = join(field, key);
    if (n == null || n.isNull()) {
      return List.of();
    }
    List<JsonNode> items = new ArrayList<>();
    if (n.isArray()) {
      n.forEach(items::add);
      if (items.isEmpty()) {
        throw new Bad(path, "is an empty list; leave it out instead");
      }
    } else if (n.isTextual() && oneAllowed) {
      items.add(n);
    } else {
      throw new Bad(path, "must be a list of strings, not " + kind(n));
    }
    List<T> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      String itemPath = path + "[" + (i + 1) + "]";
      if (!item.isTextual()) {
        throw new Bad(itemPath, "must be a string, not " + kind(item));
      }
      try {
        out.add(convert.apply(item.asText()));
      } catch (IllegalArgumentException e) {
        throw new Bad(itemPath, e.getMessage());
      }
    }
    return out;
  }

  static String kind(JsonNode n) {
    if (n.isObject()) {
      return "a mapping";
    }
    if (n.isArray()) {
      return "a list";
    }
    if (n.isTextual()) {
      return "a string";
    }
    if (n.isBoolean()) {
      return "a boolean (" + n.asText() + ")";
    }
    if (n.isNumber()) {
      return "a number (" + n.asText() + ")";
    }
    if (n.isNull()) {
      return "null";
    }
    return n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
  }
}
