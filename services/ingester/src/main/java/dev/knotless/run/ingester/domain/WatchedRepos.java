package dev.knotless.run.ingester.domain;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the watched repositories from their text form, one {@code <owner did>/<repo key>=<name>}
 * per entry, as the {@code repos} setting lists them or a file holds them one a line (blank lines
 * and lines starting with {@code #} are skipped there). Pure; thread-safe.
 */
public final class WatchedRepos {
  private WatchedRepos() {}

  /**
   * Parses entries, each {@code <owner did>/<repo key>=<name>}; a later entry for the same
   * repository replaces an earlier one (a rename).
   *
   * @param source where the entries came from, named in errors (a setting or a file and line)
   * @throws IllegalArgumentException naming the source and the entry when one is malformed
   */
  public static List<WatchedRepo> parse(String source, List<String> entries) {
    Map<RepoId, WatchedRepo> repos = new LinkedHashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      String entry = entries.get(i).strip();
      WatchedRepo repo = parseEntry(source + " entry " + (i + 1), entry);
      repos.put(repo.id(), repo);
    }
    return List.copyOf(repos.values());
  }

  /**
   * Parses the lines of a watch file: one entry a line, blank lines and {@code #} comments skipped.
   *
   * @throws IllegalArgumentException naming the file and line of a malformed entry
   */
  public static List<WatchedRepo> parseLines(String file, List<String> lines) {
    Map<RepoId, WatchedRepo> repos = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      WatchedRepo repo = parseEntry(file + " line " + (i + 1), line);
      repos.put(repo.id(), repo);
    }
    return List.copyOf(repos.values());
  }

  /** Both lists together, the file's entries after the setting's. */
  public static List<WatchedRepo> merge(List<WatchedRepo> first, List<WatchedRepo> second) {
    Map<RepoId, WatchedRepo> repos = new LinkedHashMap<>();
    List<WatchedRepo> all = new ArrayList<>(first);
    all.addAll(second);
    all.forEach(r -> repos.put(r.id(), r));
    return List.copyOf(repos.values());
  }

  private static WatchedRepo parseEntry(String where, String entry) {
    int equals = entry.lastIndexOf('=');
    if (equals <= 0 || equals == entry.length() - 1) {
      throw new IllegalArgumentException(
          where + ": expected <owner did>/<repo key>=<name>, got \"" + entry + "\"");
    }
    try {
      RepoId id = RepoId.parse(entry.substring(0, equals).strip());
      return new WatchedRepo(id, entry.substring(equals + 1).strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }
}
