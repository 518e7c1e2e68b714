package dev.knotless.runner.run;

import dev.knotless.runner.workflow.EnvNames;
import dev.knotless.runner.workflow.Workflow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The environment a step sees. From the bottom up, each layer replacing the names of the one below:
 * the runner's own {@code PATH} and {@code HOME} (shell executor only), the workflow's {@code env},
 * the variables of a run asked for by name, the {@code KNOTLESS_RUN_*} variables, then the secrets
 * granted to the run. A variable asked for under a secret's name is dropped, so a request cannot
 * stand in for a secret. Stateless and thread-safe.
 */
public final class StepEnvironment {

  /** The runner's own variables a step sees under the shell executor. */
  public static final List<String> SHELL_HOST_VARIABLES = List.of("PATH", "HOME");

  private StepEnvironment() {}

  /**
   * A step's environment, split so the docker executor can hand secrets to each step's exec and
   * never to the container.
   *
   * @param variables everything but the secrets, sorted by name
   * @param secrets the granted secrets by name; {@link #toString()} shows only their names
   * @param dropped the asked-for variables dropped because they name a secret of the workflow
   */
  public record Built(
      Map<String, String> variables, Map<String, String> secrets, List<String> dropped) {
    /** Copies the collections. */
    public Built {
      variables = Collections.unmodifiableMap(new TreeMap<>(variables));
      secrets = Collections.unmodifiableMap(new TreeMap<>(secrets));
      dropped = List.copyOf(dropped);
    }

    /** Variables and secrets together, as one process's environment. */
    public Map<String, String> all() {
      Map<String, String> all = new TreeMap<>(variables);
      all.putAll(secrets);
      return Collections.unmodifiableMap(all);
    }

    @Override
    public String toString() {
      return "StepEnvironment.Built[variables="
          + variables.keySet()
          + ", secrets="
          + secrets.keySet()
          + ", dropped="
          + dropped
          + "]";
    }
  }

  /**
   * Builds a step's environment.
   *
   * @param workflow the workflow run
   * @param run what the {@code KNOTLESS_RUN_*} variables say
   * @param secrets the secrets granted to the run (see {@code Grants})
   * @param asked the variables of a run asked for by name; empty otherwise
   * @param host the runner's own variables to pass on: {@link #hostVariables} under the shell
   *     executor, empty under docker
   * @throws InvalidVariablesException naming every asked-for variable that cannot be given
   */
  public static Built build(
      Workflow workflow,
      RunContext run,
      Map<String, String> secrets,
      Map<String, String> asked,
      Map<String, String> host)
      throws InvalidVariablesException {
    validate(asked);
    Map<String, String> vars = new LinkedHashMap<>(host);
    vars.putAll(workflow.env());
    List<String> dropped = new ArrayList<>();
    for (Map.Entry<String, String> e : new TreeMap<>(asked).entrySet()) {
      if (workflow.secrets().contains(e.getKey())) {
        dropped.add(e.getKey());
      } else {
        vars.put(e.getKey(), e.getValue());
      }
    }
    vars.putAll(runVariables(run));
    Map<String, String> given = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : secrets.entrySet()) {
      // Only what the workflow lists reaches a step, whatever the caller was handed.
      if (workflow.secrets().contains(e.getKey())) {
        given.put(e.getKey(), e.getValue());
        vars.remove(e.getKey());
      }
    }
    return new Built(vars, given, dropped);
  }

  /** The {@code KNOTLESS_RUN_*} variables of a run. */
  public static Map<String, String> runVariables(RunContext run) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("KNOTLESS_RUN_REPO", run.repoLabel());
    v.put("KNOTLESS_RUN_REF", run.ref());
    v.put("KNOTLESS_RUN_SHA", run.sha());
    v.put("KNOTLESS_RUN_BASE", run.base() == null ? "" : run.base());
    v.put("KNOTLESS_RUN_OUTPUTS", run.outputsDir());
    v.put("KNOTLESS_RUN_WORKFLOW", run.workflow());
    v.put("KNOTLESS_RUN_CHECK", run.checkKey());
    v.put("KNOTLESS_RUN_ID", run.runId());
    return v;
  }

  /**
   * The runner's own variables a step sees under the shell executor, taken from its environment.
   */
  public static Map<String, String> hostVariables(Map<String, String> runnerEnvironment) {
    Map<String, String> v = new LinkedHashMap<>();
    for (String name : SHELL_HOST_VARIABLES) {
      String value = runnerEnvironment.get(name);
      if (value != null) {
        v.put(name, value);
      }
    }
    return v;
  }

  /**
   * Checks the variables of a run asked for by name.
   *
   * @throws InvalidVariablesException naming each bad name or value, in name order
   */
  public static void validate(Map<String, String> asked) throws InvalidVariablesException {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : new TreeMap<>(asked).entrySet()) {
      String problem = EnvNames.problem(e.getKey());
      if (problem != null) {
        problems.add(problem);
      } else if (e.getValue() == null) {
        problems.add(e.getKey() + " has no value");
      } else if (e.getValue().indexOf('\0') >= 0) {
        problems.add(e.getKey() + "'s value holds a NUL character, which no variable can");
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidVariablesException(
          "the variables asked for cannot be given: " + String.join("; ", problems));
    }
  }
}
