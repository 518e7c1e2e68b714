package dev.knotless.cli.account;

import java.util.List;
import java.util.Map;

/**
 * What an account holds of knotless: each {@code dev.knotless.*} collection's count, and its
 * repositories. Immutable.
 *
 * @param counts records by collection, in the order the PDS lists collections
 * @param repos the repositories, by name
 * @param spaces the spaces it owns ({@code <did>/<name>}), each a private repository's
 */
public record Inventory(Map<String, Integer> counts, List<Repo> repos, List<String> spaces) {
  public Inventory {
    counts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(counts));
    repos = List.copyOf(repos);
    spaces = List.copyOf(spaces);
  }

  /** Whether there is nothing at all to delete: no record and no space. */
  public boolean isEmpty() {
    return total() == 0 && spaces.isEmpty();
  }

  /**
   * One repository.
   *
   * @param name its name, the repo record's key
   * @param key its key
   * @param collaborators the accounts that push to it
   * @param runners the accounts that read it to run its checks
   */
  public record Repo(String name, String key, List<String> collaborators, List<String> runners) {
    public Repo {
      collaborators = List.copyOf(collaborators);
      runners = List.copyOf(runners);
    }

    /** True when another account pushes to it or reads it, so its owner may transfer it first. */
    public boolean shared() {
      return !collaborators.isEmpty() || !runners.isEmpty();
    }
  }

  /** Records in all. */
  public int total() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** What there is, as delete-data says it first. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    if (!spaces.isEmpty()) {
      b.append(spaces.size() == 1 ? "1 space" : spaces.size() + " spaces")
          .append(" of private repositories, with everything in them:\n");
      spaces.forEach(sp -> b.append("  ").append(sp).append('\n'));
      if (total() > 0) {
        b.append('\n');
      }
    }
    if (total() == 0) {
      return b.append(spaces.isEmpty() ? "no knotless records\n" : "").toString();
    }
    int w = counts.keySet().stream().mapToInt(String::length).max().orElse(0);
    counts.forEach(
        (c, n) -> b.append(c).append(" ".repeat(w - c.length() + 2)).append(n).append('\n'));
    if (!repos.isEmpty()) {
      b.append('\n')
          .append(repos.size() == 1 ? "1 repository:" : repos.size() + " repositories:")
          .append('\n');
      for (Repo r : repos) {
        b.append("  ").append(r.name());
        if (r.shared()) {
          b.append("  (");
          if (!r.collaborators().isEmpty()) {
            b.append("pushed to by ").append(String.join(", ", r.collaborators()));
          }
          if (!r.runners().isEmpty()) {
            b.append(r.collaborators().isEmpty() ? "" : "; ")
                .append("read by ")
                .append(String.join(", ", r.runners()));
          }
          b.append(")");
        }
        b.append('\n');
      }
      if (repos.stream().anyMatch(Repo::shared)) {
        b.append("Other accounts use the repositories marked; transfer them first to keep them.\n");
      }
    }
    return b.toString();
  }
}
