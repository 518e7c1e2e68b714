package dev.knotless.runner.workflow;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A glob over slash-separated names: file paths in a commit, or full ref names.
 *
 * <p>Syntax: {@code *} matches any run of characters within one segment (never a {@code /}); {@code
 * **} matches any run of characters across segments, and as a whole segment ({@code a/**}{@code
 * /b}) also matches no segment at all; {@code ?} matches one character other than {@code /}; {@code
 * [abc]}, {@code [a-z]} and {@code [!abc]} (or {@code [^abc]}) match one character of, or not of, a
 * class, never {@code /}; a backslash makes the next character literal. Everything else matches
 * itself. A glob matches the whole name, not a part of it.
 *
 * <p>{@link #path(String)} makes a path glob, matched against paths relative to the repository root
 * without a leading slash. {@link #ref(String)} makes a ref glob: a pattern starting with {@code
 * refs/} is matched as written, and any other is a branch name, so {@code main} means {@code
 * refs/heads/main} and {@code release/*} means {@code refs/heads/release/*}; tags are written in
 * full ({@code refs/tags/v*}).
 *
 * <p>Immutable and thread-safe.
 */
public final class Glob {

  private final String written;
  private final String full;
  private final Pattern regex;

  private Glob(String written, String full) {
    this.written = written;
    this.full = full;
    this.regex = compile(full);
  }

  /**
   * A path glob.
   *
   * @throws IllegalArgumentException naming what is wrong with the pattern
   */
  public static Glob path(String pattern) {
    if (pattern == null || pattern.isEmpty()) {
      throw new IllegalArgumentException("a path glob may not be empty");
    }
    if (pattern.startsWith("/")) {
      throw new IllegalArgumentException(
          "path glob \"" + pattern + "\" starts with /: paths are relative to the repository root");
    }
    if (pattern.endsWith("/")) {
      throw new IllegalArgumentException(
          "path glob \""
              + pattern
              + "\" ends with /: write \""
              + pattern
              + "**\" for everything under it");
    }
    return new Glob(pattern, pattern);
  }

  /**
   * A ref glob; a pattern not starting with {@code refs/} is a branch name under {@code
   * refs/heads/}.
   *
   * @throws IllegalArgumentException naming what is wrong with the pattern
   */
  public static Glob ref(String pattern) {
    if (pattern == null || pattern.isEmpty()) {
      throw new IllegalArgumentException("a ref glob may not be empty");
    }
    if (pattern.startsWith("/") || pattern.endsWith("/")) {
      throw new IllegalArgumentException(
          "ref glob \"" + pattern + "\" may not start or end with /");
    }
    String full = pattern.startsWith("refs/") ? pattern : "refs/heads/" + pattern;
    return new Glob(pattern, full);
  }

  /** True if the glob matches all of {@code name}. */
  public boolean matches(String name) {
    return name != null && regex.matcher(name).matches();
  }

  /** The pattern as written in the workflow. */
  public String pattern() {
    return written;
  }

  /** The pattern as matched: for a ref glob, with {@code refs/heads/} put in front if implied. */
  public String full() {
    return full;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Glob g && g.full.equals(full) && g.written.equals(written);
  }

  @Override
  public int hashCode() {
    return full.hashCode();
  }

  @Override
  public String toString() {
    return written;
  }

  private static Pattern compile(String p) {
    StringBuilder re = new StringBuilder();
    int i = 0;
    while (i < p.length()) {
      char c = p.charAt(i);
      switch (c) {
        case '*' -> {
          if (i + 1 < p.length() && p.charAt(i + 1) == '*') {
            boolean wholeSegment =
                (i == 0 || p.charAt(i - 1) == '/') && i + 2 < p.length() && p.charAt(i + 2) == '/';
            if (wholeSegment) {
              re.append("(?:.*/)?");
              i += 3;
            } else {
              re.append(".*");
              i += 2;
            }
          } else {
            re.append("[^/]*");
            i++;
          }
        }
        case '?' -> {
          re.append("[^/]");
          i++;
        }
        case '[' -> i = appendClass(p, i, re);
        case '\\' -> {
          if (i + 1 >= p.length()) {
            throw new IllegalArgumentException("glob \"" + p + "\" ends with a lone backslash");
          }
          appendLiteral(p.charAt(i + 1), re);
          i += 2;
        }
        default -> {
          appendLiteral(c, re);
          i++;
        }
      }
    }
    try {
      return Pattern.compile(re.toString());
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("glob \"" + p + "\" has a bad character class", e);
    }
  }

  /** Appends the class starting at {@code open}; returns the index after its closing bracket. */
  private static int appendClass(String p, int open, StringBuilder re) {
    int i = open + 1;
    boolean negated = i < p.length() && (p.charAt(i) == '!' || p.charAt(i) == '^');
    if (negated) {
      i++;
    }
    int start = i;
    StringBuilder body = new StringBuilder();
    // A ']' right after the opening (or after the negation) is a member, as in POSIX.
    while (i < p.length() && (p.charAt(i) != ']' || i == start)) {
      char c = p.charAt(i);
      boolean range = c == '-' && i != start && i + 1 < p.length() && p.charAt(i + 1) != ']';
      if (range) {
        body.append('-');
      } else {
        appendLiteral(c, body);
      }
      i++;
    }
    if (i >= p.length()) {
      throw new IllegalArgumentException("glob \"" + p + "\" has a [ that is never closed");
    }
    // A class never matches '/', so that it cannot step out of a segment.
    if (negated) {
      re.append("[^").append(body).append("/]");
    } else {
      re.append("(?!/)[").append(body).append(']');
    }
    return i + 1;
  }

  private static void appendLiteral(char c, StringBuilder re) {
    if (Character.isLetterOrDigit(c) || c == '/' || c == '_') {
      re.append(c);
    } else {
      re.append('\\').append(c);
    }
  }
}
