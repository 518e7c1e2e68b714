package dev.knotless.runner.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowSet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StepEnvironmentTest {

  static final Workflow SUITE =
      WorkflowSet.load(
              Map.of(
                  ".knotless/workflows/suite.yml",
                  """
                  on: {asked: {refs: [main]}}
                  env: {SCENARIOS: all, PATH: /opt/tools/bin}
                  secrets: [API_TOKEN]
                  steps: [{run: ./suite.sh}]
                  """
                      .getBytes(StandardCharsets.UTF_8)))
          .workflow("suite")
          .orElseThrow();

  static final RunContext RUN =
      new RunContext(
          "alice.example/site",
          "refs/heads/main",
          "a".repeat(40),
          null,
          "/work/.outputs",
          "suite",
          "key.of.the.check",
          "run-17");

  @Test
  void aStepSeesEnvRunVariablesAndGrantedSecrets() throws Exception {
    StepEnvironment.Built env =
        StepEnvironment.build(
            SUITE,
            RUN,
            Map.of("API_TOKEN", "tok-value-1", "NOT_LISTED", "other-value"),
            Map.of(),
            StepEnvironment.hostVariables(
                Map.of("PATH", "/usr/bin", "HOME", "/root", "KNOTLESS_PASSWORD", "pw")));
    Map<String, String> all = env.all();
    assertEquals("all", all.get("SCENARIOS"));
    assertEquals("/opt/tools/bin", all.get("PATH"), "the workflow's env replaces the runner's");
    assertEquals("/root", all.get("HOME"));
    assertFalse(all.containsKey("KNOTLESS_PASSWORD"), "only PATH and HOME pass from the runner");
    assertEquals("alice.example/site", all.get("KNOTLESS_RUN_REPO"));
    assertEquals("refs/heads/main", all.get("KNOTLESS_RUN_REF"));
    assertEquals("a".repeat(40), all.get("KNOTLESS_RUN_SHA"));
    assertEquals("", all.get("KNOTLESS_RUN_BASE"));
    assertEquals("/work/.outputs", all.get("KNOTLESS_RUN_OUTPUTS"));
    assertEquals("suite", all.get("KNOTLESS_RUN_WORKFLOW"));
    assertEquals("key.of.the.check", all.get("KNOTLESS_RUN_CHECK"));
    assertEquals("run-17", all.get("KNOTLESS_RUN_ID"));
    assertEquals(Map.of("API_TOKEN", "tok-value-1"), env.secrets());
    assertFalse(env.variables().containsKey("API_TOKEN"), "secrets are kept apart");
    assertFalse(env.toString().contains("tok-value-1"));
  }

  @Test
  void askedVariablesReplaceEnvAndThoseNamedAsSecretsAreDropped() throws Exception {
    StepEnvironment.Built env =
        StepEnvironment.build(
            SUITE,
            RUN,
            Map.of(),
            Map.of("SCENARIOS", "login-only", "API_TOKEN", "forged", "EXTRA", "1"),
            Map.of());
    assertEquals("login-only", env.all().get("SCENARIOS"));
    assertEquals("1", env.all().get("EXTRA"));
    assertFalse(env.all().containsKey("API_TOKEN"));
    assertEquals(List.of("API_TOKEN"), env.dropped());
  }

  @Test
  void invalidAskedVariableNamesAreRejectedNamingEach() {
    String message =
        assertThrows(
                InvalidVariablesException.class,
                () ->
                    StepEnvironment.build(
                        SUITE,
                        RUN,
                        Map.of(),
                        Map.of("1BAD", "x", "KNOTLESS_RUN_REF", "refs/heads/evil", "OK", "y"),
                        Map.of()))
            .getMessage();
    assertTrue(message.contains("\"1BAD\" is not a variable name"), message);
    assertTrue(message.contains("KNOTLESS_RUN_REF is reserved"), message);
    assertFalse(message.contains("OK"), message);
  }

  @Test
  void theHeaderOfARunByNameListsItsVariablesOnePerLine() {
    assertEquals(
        List.of(
            "==> suite asked for by name at refs/heads/main, with variables:",
            "==> variable API_TOKEN dropped: it names a secret of the workflow",
            "==> variable NOTE=\"two\\nlines\"",
            "==> variable SCENARIOS=\"login-only\""),
        AskedRunHeader.lines(
            "suite",
            "refs/heads/main",
            Map.of("SCENARIOS", "login-only", "NOTE", "two\nlines", "API_TOKEN", "forged"),
            List.of("API_TOKEN")));
    assertEquals(
        List.of("==> suite asked for by name at refs/heads/main, with no variables"),
        AskedRunHeader.lines("suite", "refs/heads/main", Map.of(), List.of()));
  }
}
