package dev.knotless.runner.exec;

/**
 * Quotes names in error messages so blanks, line breaks and other control characters show, and a
 * name a step chose can never start a line of its own in a run's log. Stateless.
 */
public final class Quoting {

  private Quoting() {}

  /** {@code s} in double quotes, {@code \\}, {@code "} and control characters escaped. */
  public static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> sb.append("\\\\");
        case '"' -> sb.append("\\\"");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
