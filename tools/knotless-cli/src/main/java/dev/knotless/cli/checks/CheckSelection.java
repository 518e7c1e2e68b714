package dev.knotless.cli.checks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which checks a command shows: the filters of {@code knotless checks}, and the one check {@code
 * knotless check} and {@code knotless log} name. Pure and stateless.
 *
 * <p>A check is named by its record key, by a prefix of the key without the repository's part
 * ({@code <h(ref)>.<commit>.…}), or by a prefix of its commit of at least {@value #MIN_COMMIT}
 * characters, optionally followed by {@code .<workflow>}; {@link #shortId} gives the shortest such
 * name that picks out one check.
 */
public final class CheckSelection {
  /** The fewest characters of a commit that name a check. */
  public static final int MIN_COMMIT = 4;

  /** The statuses a record may hold, as {@code --status} takes them. */
  public static final Set<String> STATUSES =
      Set.of("queued", "running", "success", "failure", "error", "cancelled");

  /** Newest first: by when the check started (else was filed), then by key for a stable order. */
  public static final Comparator<CheckEntry> NEWEST_FIRST =
      Comparator.comparing(
              CheckEntry::when, Comparator.nullsLast(Comparator.<java.time.Instant>reverseOrder()))
          .thenComparing(CheckEntry::rkey)
          .thenComparing(CheckEntry::runner);

  private CheckSelection() {}

  /** What a name picked out. */
  public sealed interface Picked {}

  /** Exactly one check. */
  public record One(CheckEntry check) implements Picked {}

  /** None: the name matches no check of the repository. */
  public record NoneMatch(String name) implements Picked {}

  /** Several: the name is too short, or the same key was filed by two runners. */
  public record Several(String name, List<CheckEntry> matches) implements Picked {
    public Several {
      matches = List.copyOf(matches);
    }
  }

  /**
   * The checks a listing shows, newest first.
   *
   * @param ref a full ref, or null for all
   * @param workflow a workflow name, or null for all
   * @param status a status as {@link #STATUSES} spells it, or null for all
   * @param limit the most to show, at least 1
   */
  public static List<CheckEntry> filter(
      List<CheckEntry> all, String ref, String workflow, String status, int limit) {
    return all.stream()
        .filter(c -> ref == null || ref.equals(c.ref()))
        .filter(c -> workflow == null || workflow.equals(c.workflow()))
        .filter(c -> status == null || status.equals(c.status()))
        .sorted(NEWEST_FIRST)
        .limit(limit)
        .toList();
  }

  /**
   * A {@code --status} value, lower-cased.
   *
   * @throws IllegalArgumentException naming the statuses there are
   */
  public static String status(String given) {
    String s = given.toLowerCase(Locale.ROOT);
    if (!STATUSES.contains(s)) {
      throw new IllegalArgumentException(
          "--status "
              + given
              + " is not a check status; one of "
              + String.join(", ", STATUSES.stream().sorted().toList()));
    }
    return s;
  }

  /** The check {@code name} picks out of {@code all}. */
  public static Picked pick(List<CheckEntry> all, String name) {
    List<CheckEntry> exact = all.stream().filter(c -> c.rkey().equals(name)).toList();
    List<CheckEntry> found = exact.isEmpty() ? matching(all, name) : exact;
    if (found.isEmpty()) {
      return new NoneMatch(name);
    }
    if (found.size() > 1) {
      return new Several(name, found.stream().sorted(NEWEST_FIRST).toList());
    }
    return new One(found.get(0));
  }

  /** The newest check of a ref and workflow (either may be null for any), for {@code --ref}. */
  public static Picked newest(List<CheckEntry> all, String ref, String workflow) {
    List<CheckEntry> found = filter(all, ref, workflow, null, Integer.MAX_VALUE);
    if (found.isEmpty()) {
      return new NoneMatch(describe(ref, workflow));
    }
    return new One(found.get(0));
  }

  /**
   * The shortest name that picks out {@code check} among {@code all}: seven characters of its
   * commit, then with its workflow, then a longer part of its key; its whole key when nothing
   * shorter will do (two runners filed the same key).
   */
  public static String shortId(CheckEntry check, List<CheckEntry> all) {
    List<String> tries = new ArrayList<>();
    String commit = check.commit();
    String c7 = commit.substring(0, Math.min(7, commit.length()));
    tries.add(c7);
    tries.add(c7 + "." + check.workflow());
    String tail = check.tail();
    for (int n = 8; n < tail.length(); n += 4) {
      tries.add(tail.substring(0, n));
    }
    tries.add(tail);
    for (String t : tries) {
      if (!t.isEmpty() && pick(all, t) instanceof One one && one.check().equals(check)) {
        return t;
      }
    }
    return check.rkey();
  }

  private static List<CheckEntry> matching(List<CheckEntry> all, String name) {
    List<CheckEntry> out = new ArrayList<>();
    for (CheckEntry c : all) {
      if (name.isEmpty()) {
        continue;
      }
      if (c.rkey().startsWith(name) || c.tail().startsWith(name) || byCommit(c, name)) {
        out.add(c);
      }
    }
    return out;
  }

  /** {@code <commit prefix>} or {@code <commit prefix>.<workflow>}. */
  private static boolean byCommit(CheckEntry c, String name) {
    int dot = name.indexOf('.');
    String commit = dot < 0 ? name : name.substring(0, dot);
    if (commit.length() < MIN_COMMIT || !c.commit().startsWith(commit)) {
      return false;
    }
    return dot < 0 || c.workflow().equals(name.substring(dot + 1));
  }

  private static String describe(String ref, String workflow) {
    if (ref == null && workflow == null) {
      return "any check";
    }
    return (workflow == null ? "a check" : "a check of " + workflow)
        + (ref == null ? "" : " at " + ref);
  }
}
