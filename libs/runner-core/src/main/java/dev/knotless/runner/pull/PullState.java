package dev.knotless.runner.pull;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * One {@code dev.knotless.state} record naming a pull, and the rule for which count. Immutable.
 *
 * @param uri the state record's AT-URI, whose key ends in a TID, so later ones sort after
 * @param author who wrote it
 * @param state {@code open}, {@code closed} or {@code merged}; anything else counts as nothing
 * @param createdAt when it says it was written, as written (RFC 3339)
 */
public record PullState(String uri, String author, String state, String createdAt) {

  /** The record's collection. */
  public static final String COLLECTION = "dev.knotless.state";

  /**
   * Whether a pull is open: a pull with no counting state is; otherwise the newest counting state
   * decides. Only states written by the base repository's owner or one of its collaborators count,
   * so a stranger can neither close nor reopen a pull. Newest is by {@code createdAt}, then by the
   * record's AT-URI.
   */
  public static boolean open(
      Collection<PullState> states, String ownerDid, Collection<String> collaborators) {
    return newest(states, ownerDid, collaborators).equals("open");
  }

  /**
   * Whether a pull was closed without being merged: its newest counting state, as {@link #open}
   * reckons it, is {@code closed}.
   */
  public static boolean closedUnmerged(
      Collection<PullState> states, String ownerDid, Collection<String> collaborators) {
    return newest(states, ownerDid, collaborators).equals("closed");
  }

  private static String newest(
      Collection<PullState> states, String ownerDid, Collection<String> collaborators) {
    Set<String> writers = new java.util.HashSet<>(collaborators);
    writers.add(ownerDid);
    List<PullState> counting =
        states.stream()
            .filter(s -> writers.contains(s.author()))
            .filter(s -> List.of("open", "closed", "merged").contains(s.state()))
            .sorted(
                Comparator.comparing((PullState s) -> s.createdAt() == null ? "" : s.createdAt())
                    .thenComparing(PullState::uri))
            .toList();
    return counting.isEmpty() ? "open" : counting.get(counting.size() - 1).state();
  }
}
