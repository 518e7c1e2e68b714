package dev.knotless.runner.state;

/**
 * A trusted pull's or batch's run that passed, kept so a push at the same tree can take its result.
 *
 * @param tree the git tree the run checked
 * @param workflow the workflow's name
 * @param check the AT-URI of the run's check record
 * @param subject the pull's AT-URI, or {@code queue <ref>} for a batch
 */
public record PassedRun(String tree, String workflow, String check, String subject) {
  public PassedRun {
    StateValues.requireText(tree, "a passed run's tree");
    StateValues.requireText(workflow, "a passed run's workflow");
    StateValues.requireText(check, "a passed run's check");
    StateValues.requireText(subject, "a passed run's subject");
  }
}
