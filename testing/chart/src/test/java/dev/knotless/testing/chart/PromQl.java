package dev.knotless.testing.chart;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Just enough PromQL reading to list the metric names an expression queries. */
final class PromQl {
  private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
  private static final Pattern BRACES = Pattern.compile("\\{[^}]*}");
  private static final Pattern BRACKETS = Pattern.compile("\\[[^]]*]");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENT = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "Inf", "NaN", "inf", "nan");

  private PromQl() {}

  static Set<String> metricNames(String expr) {
    String s = STRING.matcher(expr).replaceAll(" ");
    s = BRACES.matcher(s).replaceAll(" ");
    s = BRACKETS.matcher(s).replaceAll(" ");
    s = GROUPING.matcher(s).replaceAll(" ");
    Set<String> names = new TreeSet<>();
    Matcher m = IDENT.matcher(s);
    while (m.find()) {
      String rest = s.substring(m.end()).stripLeading();
      boolean call = rest.startsWith("(");
      boolean partOfNumber = m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1));
      if (!call && !partOfNumber && !KEYWORDS.contains(m.group())) {
        names.add(m.group());
      }
    }
    return names;
  }
}
