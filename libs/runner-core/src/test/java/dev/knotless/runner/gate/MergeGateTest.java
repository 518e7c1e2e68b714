package dev.knotless.runner.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.knotless.runner.gate.MergeGate.Decision;
import dev.knotless.runner.gate.MergeGate.Seen;
import dev.knotless.runner.gate.MergeGate.Verdict;
import dev.knotless.runner.workflow.WorkflowSet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MergeGateTest {

  private static final List<String> BOTH = List.of("test", "lint");

  private static Seen seen(String workflow, String status) {
    return new Seen("did:plc:runner", workflow, status, "2026-12-01T10:00:00Z", "");
  }

  private static Verdict gate(Seen... checks) {
    return MergeGate.decide(BOTH, List.of(checks)).verdict();
  }

  @Test
  void aFailureWinsOverRunningAndMissingChecks() {
    assertEquals(Verdict.FAILED, gate(seen("test", "failure"), seen("lint", "running")));
    assertEquals(Verdict.FAILED, gate(seen("test", "error")));
  }

  @Test
  void aStatusThisVersionDoesNotKnowFailsTheGate() {
    assertEquals(
        Verdict.FAILED, gate(seen("test", "timed-out-in-the-future"), seen("lint", "success")));
  }

  @Test
  void aQueuedOrRunningCheckMeansRunningEvenBesideAMissingOne() {
    assertEquals(Verdict.RUNNING, gate(seen("test", "queued")));
    assertEquals(Verdict.RUNNING, gate(seen("test", "running"), seen("lint", "cancelled")));
  }

  @Test
  void aMissingOrCancelledCheckMeansPending() {
    assertEquals(Verdict.PENDING, gate(seen("test", "success")));
    assertEquals(Verdict.PENDING, gate(seen("test", "success"), seen("lint", "cancelled")));
  }

  @Test
  void everyWorkflowWithASuccessPassesAndSoDoesAPullNoWorkflowRunsOn() {
    assertEquals(Verdict.PASSED, gate(seen("test", "success"), seen("lint", "success")));
    assertEquals(Verdict.PASSED, MergeGate.decide(List.of(), List.of()).verdict());
  }

  @Test
  void theNewestCheckOfAWorkflowDecidesWhicheverRunnerFiledIt() {
    Seen old = new Seen("did:plc:a", "test", "failure", "2026-12-01T10:00:00Z", "broke");
    Seen fresh = new Seen("did:plc:b", "test", "success", "2026-12-01T10:05:00.000Z", "");
    Decision d = MergeGate.decide(List.of("test"), List.of(fresh, old, seen("other", "failure")));
    assertEquals(Verdict.PASSED, d.verdict(), "a check of a workflow that does not run is ignored");
    assertEquals(fresh, d.parts().get(0).check());
  }

  @Test
  void eachWorkflowsPartSaysItsStatusOrMissing() {
    Decision d = MergeGate.decide(BOTH, List.of(seen("test", "running")));
    assertEquals("running", d.parts().get(0).status());
    assertEquals(Verdict.RUNNING, d.parts().get(0).verdict());
    assertEquals("missing", d.parts().get(1).status());
    assertNull(d.parts().get(1).check());
  }

  @Test
  void theGateWaitsForWorkflowsRunningOnAPullIntoTheBaseOnANamedRunnerAndForBrokenOnes() {
    WorkflowSet set =
        WorkflowSet.load(
            Map.of(
                ".knotless/workflows/ci.yml", bytes("on: {pull: {}}\nsteps: [{run: 'true'}]\n"),
                ".knotless/workflows/push.yml", bytes("on: {push: {}}\nsteps: [{run: 'true'}]\n"),
                ".knotless/workflows/other.yml",
                    bytes("on: {pull: {base: [refs/heads/dev]}}\nsteps: [{run: 'true'}]\n"),
                ".knotless/workflows/elsewhere.yml",
                    bytes("on: {pull: {}}\nrunners: [did:plc:nobody]\nsteps: [{run: 'true'}]\n"),
                ".knotless/workflows/broken.yml", bytes("on: [[[\n")));
    assertEquals(
        List.of("broken", "ci"),
        MergeGate.workflows(set, "refs/heads/main", List.of("did:plc:runner")));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
