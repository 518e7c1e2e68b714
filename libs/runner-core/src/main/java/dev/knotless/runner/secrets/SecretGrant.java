package dev.knotless.runner.secrets;

import dev.knotless.runner.workflow.Glob;
import java.util.List;

/**
 * One secret as a grant gives it to a repository.
 *
 * @param name the secret's name, as a workflow lists it and a step sees it
 * @param value the value; never logged, and {@link #toString()} leaves it out
 * @param refs the refs it is limited to, matched as {@code on.push.refs} are; empty means every ref
 */
public record SecretGrant(String name, String value, List<Glob> refs) {

  /** Copies the list. */
  public SecretGrant {
    refs = List.copyOf(refs);
  }

  /**
   * True if the grant reaches a run at the full ref name. A null ref (a pull's or a batch's run) is
   * reached by no grant: those runs get no secrets.
   */
  public boolean reaches(String ref) {
    if (ref == null) {
      return false;
    }
    return refs.isEmpty() || refs.stream().anyMatch(g -> g.matches(ref));
  }

  @Override
  public String toString() {
    return "SecretGrant[" + name + ", refs=" + refs + "]";
  }
}
