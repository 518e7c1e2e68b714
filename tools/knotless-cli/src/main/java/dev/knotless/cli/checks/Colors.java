package dev.knotless.cli.checks;

import java.util.Map;

/**
 * Whether output is coloured, and the colours of statuses. {@code --color=auto} colours only a
 * terminal, and never when {@code NO_COLOR} is set to anything but the empty string (no-color.org);
 * {@code always} and {@code never} decide alone. Immutable.
 *
 * @param on whether escape codes are written
 */
public record Colors(boolean on) {
  /** The {@code --color} choices. */
  public enum Mode {
    auto,
    always,
    never
  }

  /** No colour. */
  public static final Colors OFF = new Colors(false);

  /** The decision for {@code mode}, given the environment and whether stdout is a terminal. */
  public static Colors decide(Mode mode, Map<String, String> env, boolean terminal) {
    return switch (mode) {
      case always -> new Colors(true);
      case never -> OFF;
      case auto -> {
        String noColor = env.get("NO_COLOR");
        yield new Colors(terminal && (noColor == null || noColor.isEmpty()));
      }
    };
  }

  /** A status, coloured: green for success, red for failure and error, yellow while going. */
  public String status(String s) {
    String code =
        switch (s) {
          case "success" -> "32";
          case "failure", "error" -> "31";
          case "queued", "running" -> "33";
          case "cancelled", "skipped" -> "2";
          default -> null;
        };
    return paint(code, s);
  }

  /** Dimmed text, for what matters less (keys, notes). */
  public String dim(String s) {
    return paint("2", s);
  }

  /** Bold text, for headings. */
  public String bold(String s) {
    return paint("1", s);
  }

  private String paint(String code, String s) {
    if (!on || code == null || s.isEmpty()) {
      return s;
    }
    return "\u001b[" + code + "m" + s + "\u001b[0m";
  }
}
