package dev.knotless.runner.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lines at the top of the public log of a run asked for by name: what was asked for, and every
 * variable it was given, so whoever reads the check sees what the run was told. The log is masked
 * as any is, so a variable whose value matches a granted secret still shows {@code ***}. Values are
 * written as JSON strings, so a value with a line break stays on its line. Stateless and
 * thread-safe.
 */
public final class AskedRunHeader {

  private AskedRunHeader() {}

  /**
   * The header lines, without line ends.
   *
   * @param workflow the workflow's name
   * @param ref the full ref it runs at
   * @param variables the variables asked for
   * @param dropped those dropped because they name a secret of the workflow
   */
  public static List<String> lines(
      String workflow, String ref, Map<String, String> variables, List<String> dropped) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "==> "
            + workflow
            + " asked for by name at "
            + ref
            + (variables.isEmpty() ? ", with no variables" : ", with variables:"));
    for (Map.Entry<String, String> e : new TreeMap<>(variables).entrySet()) {
      if (dropped.contains(e.getKey())) {
        lines.add("==> variable " + e.getKey() + " dropped: it names a secret of the workflow");
      } else {
        lines.add("==> variable " + e.getKey() + "=" + quote(e.getValue()));
      }
    }
    return lines;
  }

  private static String quote(String v) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
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
