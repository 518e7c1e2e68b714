package dev.knotless.cli.lint;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The line each field of a workflow file starts on, named as the runner's parser names fields in
 * its errors: keys joined by dots, list items numbered from 1 in brackets ({@code
 * steps[2].timeout}). Pure and stateless.
 */
public final class FieldLines {
  private static final Pattern AT_LINE = Pattern.compile(" at line (\\d+)");
  private static final Pattern LAST = Pattern.compile("(\\.[^.\\[]*|\\[\\d+\\])$");

  private final Map<String, Integer> lines;

  private FieldLines(Map<String, Integer> lines) {
    this.lines = lines;
  }

  /** Reads the fields' lines; a file that does not parse yields what was read before the fault. */
  public static FieldLines of(String file, byte[] content) {
    Map<String, Integer> lines = new HashMap<>();
    JsonFactory f = file.endsWith(".json") ? new JsonFactory() : new YAMLFactory();
    record Frame(boolean array, String path, int[] index) {}
    Deque<Frame> stack = new ArrayDeque<>();
    try (JsonParser p = f.createParser(content)) {
      String pending = "";
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        int line = p.getTokenLocation().getLineNr();
        Frame top = stack.peek();
        String here = pending;
        if (top != null && top.array() && t != JsonToken.END_ARRAY) {
          here = top.path() + "[" + (++top.index()[0]) + "]";
          lines.putIfAbsent(here, line);
        }
        switch (t) {
          case FIELD_NAME -> {
            pending =
                top == null || top.path().isEmpty()
                    ? p.currentName()
                    : top.path() + "." + p.currentName();
            lines.putIfAbsent(pending, line);
          }
          case START_OBJECT -> stack.push(new Frame(false, here, new int[1]));
          case START_ARRAY -> stack.push(new Frame(true, here, new int[1]));
          case END_OBJECT, END_ARRAY -> stack.pop();
          default -> {}
        }
      }
    } catch (IOException | RuntimeException e) {
      // The parser's own error names the line of a file that does not parse.
    }
    return new FieldLines(lines);
  }

  /**
   * The line a runner's error points at: the line its message names for a file that does not parse,
   * else the field's, else its nearest enclosing field's (a missing {@code steps[2].run} is at
   * {@code steps[2]}), else 1.
   */
  public int line(String field, String problem) {
    Matcher m = AT_LINE.matcher(problem);
    if (field.isEmpty() && m.find()) {
      return Integer.parseInt(m.group(1));
    }
    String f = field;
    while (!f.isEmpty()) {
      Integer l = lines.get(f);
      if (l != null) {
        return l;
      }
      Matcher last = LAST.matcher(f);
      f = last.find() ? f.substring(0, last.start()) : "";
    }
    return 1;
  }
}
