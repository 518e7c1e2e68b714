package dev.knotless.atproto;

/**
 * Names from others (a repository's, a workflow file's, a record key) made safe to put in a message
 * or a log line: every character that could end the line, move the cursor, reorder the text or hide
 * itself (control, format, line and paragraph separators, lone surrogates) is written as an escape,
 * and a long name is cut. Pure and thread-safe.
 */
public final class Printable {
  /** The most characters of a name a message repeats. */
  public static final int MAX_CHARS = 120;

  private Printable() {}

  /** Whether {@code c} is one {@link #escape} rewrites (backslash and quote aside). */
  public static boolean unprintable(char c) {
    return switch (Character.getType(c)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.SURROGATE,
          Character.UNASSIGNED,
          Character.PRIVATE_USE ->
          true;
      default -> false;
    };
  }

  /** Whether {@code s} holds a character {@link #escape} would rewrite. */
  public static boolean hasUnprintable(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
        continue;
      }
      if (unprintable(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code s} with {@code \n}, {@code \r}, {@code \t}, backslash and quote escaped, other
   * unprintable characters as {@code \}uXXXX, and cut with {@code …} past {@link #MAX_CHARS}.
   */
  public static String escape(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder();
    int i = 0;
    for (; i < s.length() && b.length() < MAX_CHARS; i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        b.append(c).append(s.charAt(++i));
        continue;
      }
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\\' -> b.append("\\\\");
        case '"' -> b.append("\\\"");
        default -> {
          if (unprintable(c)) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return i < s.length() ? b + "…" : b.toString();
  }

  /** {@link #escape} in double quotes, with its length in characters when it was cut. */
  public static String quote(String s) {
    String e = escape(s);
    return e.endsWith("…") && s != null
        ? "\"" + e + "\" (" + s.length() + " characters)"
        : "\"" + e + "\"";
  }
}
