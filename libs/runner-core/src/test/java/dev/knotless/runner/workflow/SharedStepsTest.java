package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharedStepsTest {

  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  private static WorkflowSet load(String yaml) {
    return WorkflowSet.load(
        Map.of(".knotless/workflows/w.yml", yaml.getBytes(StandardCharsets.UTF_8)));
  }

  private static final String WORKFLOW =
      """
      on: {push: {}}
      secrets: [A, B]
      steps:
        - name: tools
          uses: alice.test/tools/.knotless/steps/s.yml
          secrets: [A]
          on: {refs: [refs/heads/main]}
        - name: after
          run: 'true'
      """;

  private static final StepFile FILE =
      StepFile.parse(
          "alice.test/tools/s.yml",
          "s.yml",
          """
          secrets: [A, C]
          steps:
            - name: one
              run: echo one
            - name: two
              run: echo two
              on: {refs: [refs/heads/*]}
          """
              .getBytes(StandardCharsets.UTF_8));

  @Test
  void aUsesStepBecomesTheFilesStepsSeeingOnlyWhatItPassesWhereBothOnsMatch() {
    Workflow w = load(WORKFLOW).workflows().get(0);
    Uses u = w.uses().get(0);
    assertEquals("alice.test/tools", u.repo());
    assertEquals(".knotless/steps/s.yml", u.path());
    Workflow out = SharedSteps.expand(w, Map.of(u, FILE));
    assertEquals(
        List.of("tools / one", "tools / two", "after"),
        out.steps().stream().map(Step::name).toList());
    Step one = out.steps().get(0);
    assertEquals(List.of("A"), one.sees(), "B not passed, C not granted by the workflow");
    assertTrue(one.runsAt("refs/heads/main"));
    assertFalse(one.runsAt("refs/heads/next"), "the uses step's on holds for its steps");
    assertTrue(one.leftOutNote("refs/heads/next").contains("the shared step's on.refs"));
    assertNull(out.steps().get(2).sees(), "a step of the workflow's own sees every secret");
    assertTrue(out.hasSharedSteps());
  }

  @Test
  void badUsesStepsAreWorkflowErrorsNamingTheField() {
    assertEquals(
        "steps[1].secrets",
        load(WORKFLOW.replace("secrets: [A]", "secrets: [Z]")).errors().get(0).field());
    assertTrue(
        load(WORKFLOW.replace("uses: alice.test/tools/.knotless/steps/s.yml", "uses: a/../x.yml"))
            .errors()
            .get(0)
            .problem()
            .contains("bad"));
    assertTrue(
        load(WORKFLOW.replace("secrets: [A]\n", "secrets: [A]\n    run: echo\n"))
            .errors()
            .get(0)
            .problem()
            .contains("both run and uses"));
  }

  @Test
  void aStepFileMayNotUseAnotherSoSharedStepsNeverLoop() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StepFile.parse(
                    "a/b/s.yml",
                    "s.yml",
                    "steps:\n  - uses: a/b/s.yml\n".getBytes(StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains("may not use other step files"), e.getMessage());
  }

  @Test
  void theLockPinsDidKeyAndCommitAndAPullsNewAccountsAreStrangersUnlessTheyWrite() {
    StepLock base =
        StepLock.parse(
            ("{\"steps\": {\"a/t\": {\"did\": \"did:plc:a\", \"key\": \"k1\", \"commit\": \""
                    + SHA
                    + "\"}}}")
                .getBytes(StandardCharsets.UTF_8));
    StepLock pull =
        StepLock.parse(
            ("{\"steps\": {\"a/t\": {\"did\": \"did:plc:a\", \"key\": \"k1\", \"commit\": \""
                    + SHA
                    + "\"}, \"m/x\": {\"did\": \"did:plc:mallory\", \"key\": \"k2\", \"commit\": \""
                    + SHA
                    + "\"}, \"c/y\": {\"did\": \"did:plc:collab\", \"key\": \"k3\", \"commit\": \""
                    + SHA
                    + "\"}}}")
                .getBytes(StandardCharsets.UTF_8));
    assertEquals("did:plc:a", base.find("a/t").orElseThrow().did());
    assertEquals(
        List.of("did:plc:mallory"),
        SharedSteps.strangers(pull, base, "did:plc:owner", List.of("did:plc:collab")));
    assertTrue(SharedSteps.strangers(base, base, "did:plc:owner", List.of()).isEmpty());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StepLock.parse(
                    "{\"steps\": {\"a/t\": {\"did\": \"did:plc:a\", \"key\": \"k\", \"commit\": \"main\"}}}"
                        .getBytes(StandardCharsets.UTF_8)));
    assertTrue(
        e.getMessage().contains("steps.a/t.commit must be a full commit id"), e.getMessage());
  }
}
