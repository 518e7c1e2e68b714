package dev.knotless.runner.workflow;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts shared steps in place: each {@code uses} step of a workflow becomes the steps of the file it
 * names, each seeing only the secrets the {@code uses} step passes of those the file asks for, and
 * run only where both the {@code uses} step's {@code on.refs} and its own match. Pure and
 * stateless: the caller reads the files at the locked commits.
 */
public final class SharedSteps {

  private SharedSteps() {}

  /**
   * The workflow with its shared steps in place.
   *
   * @param files each step file its {@code uses} steps name, read
   * @throws IllegalArgumentException when two steps would have one name
   */
  public static Workflow expand(Workflow w, Map<Uses, StepFile> files) {
    if (w.uses().isEmpty()) {
      return w;
    }
    List<Step> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Step s : w.steps()) {
      if (s.uses() == null) {
        add(out, names, s);
        continue;
      }
      StepFile file = files.get(s.uses());
      List<String> sees =
          s.uses().secrets().stream().filter(n -> file.secrets().contains(n)).toList();
      for (Step inner : file.steps()) {
        add(
            out,
            names,
            new Step(
                s.name() + " / " + inner.name(),
                inner.run(),
                inner.refs(),
                inner.timeoutSeconds(),
                null,
                s.refs(),
                sees));
      }
    }
    return w.withSteps(out);
  }

  private static void add(List<Step> out, Set<String> names, Step s) {
    if (!names.add(s.name())) {
      throw new IllegalArgumentException(
          "two steps would be named \"" + s.name() + "\" once the shared steps are in place");
    }
    out.add(s);
  }

  /**
   * The accounts a pull's lock names that the base's lock does not, and that are neither the owner
   * nor a collaborator: a pull bringing shared steps from any of them is untrusted.
   */
  public static List<String> strangers(
      StepLock pull, StepLock base, String ownerDid, List<String> collaborators) {
    List<String> out = new ArrayList<>();
    for (String did : pull.accounts()) {
      if (!base.accounts().contains(did) && !did.equals(ownerDid) && !collaborators.contains(did)) {
        out.add(did);
      }
    }
    return out;
  }
}
