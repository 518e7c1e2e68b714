package dev.knotless.runner.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.PullMark;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.WantedRun;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RerunsTest {

  private static final String PULL = "at://did:plc:bob/dev.knotless.pull/3kp";
  private static final RepoState RAN =
      RepoState.empty()
          .withRef("refs/heads/main", 5)
          .withDropped(new DroppedRun("refs/heads/main", "c5", "", List.of("ci")))
          .withPull(PULL, new PullMark("h", "b"))
          .withRerun("3k0000000001");

  private static RerunRequest req(String rkey, String ref, String pull, String wf) {
    return new RerunRequest(rkey, ref, pull, wf, Map.of("N", "1"));
  }

  @Test
  void aRefAskedForInFullForgetsItsGenerationSoAllItsWorkflowsRunAgain() {
    var applied =
        Reruns.apply(RAN, List.of(req("3k0000000002", "refs/heads/main", "", "")), true, false);
    assertEquals(Map.of(), applied.state().refs());
    assertEquals(List.of(), applied.state().dropped());
    assertEquals("3k0000000002", applied.state().rerun());
    RepoView view =
        new RepoView("did:plc:alice", "k", null, List.of(new RefState("refs/heads/main", "c5", 5)));
    assertEquals(1, DuePlanner.plan(view, applied.state(), Watch.KNOWN).due().size());
  }

  @Test
  void aRefAndAWorkflowWantThatWorkflowByNameWithItsVariables() {
    var applied =
        Reruns.apply(
            RAN, List.of(req("3k0000000002", "refs/heads/main", "", "suite")), true, false);
    assertEquals(
        Map.of("refs/heads/main", List.of(new WantedRun("suite", Map.of("N", "1")))),
        applied.state().wanted());
    assertEquals(5L, applied.state().refs().get("refs/heads/main"));
  }

  @Test
  void aPullAskedForInFullForgetsWhereItRanAndOneWorkflowIsRecordedAlone() {
    var full = Reruns.apply(RAN, List.of(req("3k0000000002", "", PULL, "")), true, false).state();
    assertEquals(Set.of(PULL), full.asked());
    assertTrue(full.pulls().isEmpty());
    var one =
        Reruns.apply(RAN, List.of(req("3k0000000002", "", PULL, "screens")), true, false).state();
    assertEquals(Map.of(PULL, Set.of("screens")), one.askedOnly());
    assertEquals(Set.of(PULL), one.pulls().keySet(), "its other checks stand");
  }

  @Test
  void requestsAlreadyActedOnOrNamingNothingDoNothing() {
    var applied =
        Reruns.apply(
            RAN,
            List.of(
                req("3k0000000001", "refs/heads/main", "", ""), req("3k0000000003", "", "", "")),
            true,
            false);
    assertEquals(RAN.refs(), applied.state().refs());
    assertEquals("3k0000000003", applied.state().rerun());
  }

  @Test
  void onAFirstWatchRequestsAlreadyThereAreTheStartingPoint() {
    var applied =
        Reruns.apply(
            RepoState.empty(),
            List.of(req("3k0000000009", "refs/heads/main", "", "suite")),
            true,
            true);
    assertEquals(List.of(), applied.actedOn());
    assertEquals(Map.of(), applied.state().wanted());
    assertEquals("3k0000000009", applied.state().rerun());
  }
}
