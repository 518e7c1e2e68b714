package dev.knotless.runner.workflow;

import java.util.Collection;
import java.util.List;

/** The triggers a workflow's {@code on} may hold. All are immutable and thread-safe. */
public final class Triggers {

  private Triggers() {}

  /**
   * {@code on.push}: runs when a push moves a ref.
   *
   * @param refs the refs it runs on; empty means every ref
   * @param paths the paths a changed file must match; empty means no filter
   */
  public record Push(List<Glob> refs, List<Glob> paths) {
    /** Copies the lists. */
    public Push {
      refs = List.copyOf(refs);
      paths = List.copyOf(paths);
    }

    /** True if the trigger matches the full ref name. */
    public boolean matchesRef(String ref) {
      return refs.isEmpty() ? ref != null : refs.stream().anyMatch(g -> g.matches(ref));
    }
  }

  /**
   * {@code on.pull}: runs on a pull into a matching base branch.
   *
   * @param base the base refs; empty means every base
   * @param paths the paths a changed file must match; empty means no filter
   */
  public record Pull(List<Glob> base, List<Glob> paths) {
    /** Copies the lists. */
    public Pull {
      base = List.copyOf(base);
      paths = List.copyOf(paths);
    }

    /** True if the trigger matches the pull's base ref. */
    public boolean matchesBase(String baseRef) {
      return base.isEmpty() ? baseRef != null : base.stream().anyMatch(g -> g.matches(baseRef));
    }
  }

  /**
   * {@code on.asked}: may be run by name.
   *
   * @param refs the refs it may be asked for at; empty means every ref
   * @param commit path globs of the files a passing run commits back to the branch; empty means it
   *     writes nothing back
   */
  public record Asked(List<Glob> refs, List<Glob> commit) {
    /** Copies the lists. */
    public Asked {
      refs = List.copyOf(refs);
      commit = List.copyOf(commit);
    }

    /** True if it may be asked for at the full ref name. */
    public boolean matchesRef(String ref) {
      return refs.isEmpty() ? ref != null : refs.stream().anyMatch(g -> g.matches(ref));
    }

    /** True if it writes back. */
    public boolean writesBack() {
      return !commit.isEmpty();
    }
  }

  /**
   * True if some changed file matches some glob. A null change set is unknown, so nothing is
   * skipped; an empty glob list is no filter.
   */
  static boolean anyPathMatches(List<Glob> paths, Collection<String> changed) {
    if (paths.isEmpty() || changed == null) {
      return true;
    }
    for (String file : changed) {
      for (Glob g : paths) {
        if (g.matches(file)) {
          return true;
        }
      }
    }
    return false;
  }
}
