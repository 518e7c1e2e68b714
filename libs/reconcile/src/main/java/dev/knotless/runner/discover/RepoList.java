package dev.knotless.runner.discover;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The operator's list of repositories to watch, in the one format every part of the runner reads:
 * {@code <handle or did>/<name>}, as the all-in-one's arguments name them, one a line in a file
 * (the chart's ConfigMap), blank lines and lines starting with {@code #} skipped. A repository
 * listed twice is watched once. Pure; thread-safe.
 */
public final class RepoList {
  private RepoList() {}

  /**
   * The labels of {@code lines}, in order, each once.
   *
   * @param where the file the lines came from, named in errors
   * @throws IllegalArgumentException naming the file and line of an entry that is not {@code
   *     <handle or did>/<name>}
   */
  public static List<String> parse(String where, List<String> lines) {
    Set<String> labels = new LinkedHashSet<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      labels.add(check(where + " line " + (i + 1), line));
    }
    return List.copyOf(labels);
  }

  /** {@code first}'s labels, then those of {@code second} not in {@code first}. */
  public static List<String> both(List<String> first, List<String> second) {
    Set<String> labels = new LinkedHashSet<>(first);
    labels.addAll(second);
    return new ArrayList<>(labels);
  }

  /**
   * One entry, checked: {@code <handle or did>/<name>}.
   *
   * @throws IllegalArgumentException naming {@code where} and the entry when malformed
   */
  public static String check(String where, String entry) {
    int slash = entry.indexOf('/');
    boolean ok =
        slash > 0
            && slash < entry.length() - 1
            && entry.indexOf('/', slash + 1) < 0
            && entry.chars().noneMatch(c -> Character.isWhitespace(c) || c == '=');
    if (!ok) {
      throw new IllegalArgumentException(
          where + ": expected <handle or did>/<name>, got \"" + entry + "\"");
    }
    return entry;
  }
}
