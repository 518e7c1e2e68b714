package dev.knotless.runner.state;

import java.util.Map;

/**
 * A workflow asked for by name at a ref and not yet run.
 *
 * @param workflow the workflow's name
 * @param variables the variables the request carries, replacing env entries of the same name
 */
public record WantedRun(String workflow, Map<String, String> variables) {
  public WantedRun {
    StateValues.requireText(workflow, "a wanted run's workflow");
    variables = Map.copyOf(variables);
  }
}
