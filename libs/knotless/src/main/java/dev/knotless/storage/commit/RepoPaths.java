package dev.knotless.storage.commit;

import java.util.Locale;

/** Checks the paths a commit without a checkout puts or deletes. Pure and thread-safe. */
public final class RepoPaths {
  private RepoPaths() {}

  /**
   * A path must be relative, with no empty, {@code .} or {@code ..} segment, no NUL or newline, and
   * no {@code .git} segment in any case.
   *
   * @throws IllegalArgumentException naming the path and what is wrong
   */
  public static String validate(String path) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("a path must not be empty");
    }
    if (path.indexOf('\0') >= 0 || path.indexOf('\n') >= 0 || path.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("path holds a NUL or newline: " + printable(path));
    }
    if (path.startsWith("/")) {
      throw new IllegalArgumentException("path must be relative: " + path);
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty()) {
        throw new IllegalArgumentException("path has an empty segment: " + path);
      }
      if (segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("path has a . or .. segment: " + path);
      }
      if (segment.toLowerCase(Locale.ROOT).equals(".git")) {
        throw new IllegalArgumentException("path has a .git segment: " + path);
      }
    }
    return path;
  }

  private static String printable(String s) {
    return s.replace("\0", "\\0").replace("\n", "\\n").replace("\r", "\\r");
  }
}
