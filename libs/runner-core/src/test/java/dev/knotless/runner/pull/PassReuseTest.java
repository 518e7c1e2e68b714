package dev.knotless.runner.pull;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowSet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PassReuseTest {

  private static final String MAIN = "refs/heads/main";

  private static Workflow workflow(String yaml) {
    WorkflowSet set =
        WorkflowSet.load(
            Map.of(".knotless/workflows/w.yml", yaml.getBytes(StandardCharsets.UTF_8)));
    assertTrue(set.errors().isEmpty(), set.errors().toString());
    return set.workflows().get(0);
  }

  private static final Workflow PLAIN =
      workflow("on: {push: {}, pull: {}}\nsteps:\n  - name: a\n    run: 'true'\n");

  @Test
  void aTrustedPullsRunIntoTheDefaultBranchIsKept() {
    assertEquals(Optional.empty(), PassReuse.whyNotKept(PLAIN, PullTrust.TRUSTED, MAIN, MAIN));
    assertEquals(Optional.empty(), PassReuse.whyNotTaken(PLAIN, MAIN, MAIN, false));
  }

  @Test
  void agentsAndStrangersPullsAndPullsIntoOtherBranchesAreNotKept() {
    assertEquals(
        Optional.of("the pull is not trusted"),
        PassReuse.whyNotKept(PLAIN, PullTrust.AGENT, MAIN, MAIN));
    assertEquals(
        Optional.of("the pull is not trusted"),
        PassReuse.whyNotKept(PLAIN, PullTrust.UNTRUSTED, MAIN, MAIN));
    assertEquals(
        Optional.of("the pull is not into the default branch"),
        PassReuse.whyNotKept(PLAIN, PullTrust.TRUSTED, "refs/heads/next", MAIN));
  }

  @Test
  void secretsFinishAndLeftOutStepsAreNeverReusedAndRerunsRunAgain() {
    Workflow secrets =
        workflow("on: {push: {}, pull: {}}\nsecrets: [T]\nsteps:\n  - name: a\n    run: 'true'\n");
    Workflow finish =
        workflow(
            "on: {push: {}, pull: {}}\nsuperseded: finish\nsteps:\n  - name: a\n    run: 'true'\n");
    Workflow leftOut =
        workflow(
            "on: {push: {}, pull: {}}\nsteps:\n  - name: a\n    run: 'true'\n"
                + "    on: {refs: [refs/heads/main]}\n");
    for (Workflow w : List.of(secrets, finish, leftOut)) {
      assertTrue(PassReuse.whyNotKept(w, PullTrust.TRUSTED, MAIN, MAIN).isPresent());
      assertTrue(PassReuse.whyNotTaken(w, MAIN, MAIN, false).isPresent());
    }
    assertTrue(PassReuse.whyNotTaken(PLAIN, MAIN, MAIN, true).isPresent());
    assertTrue(PassReuse.whyNotTaken(PLAIN, "refs/heads/next", MAIN, false).isPresent());
  }

  @Test
  void theNewestPassOfTheTreeAndWorkflowIsFoundAndTakenOnlyWhileItsCheckIsSuccess() {
    List<PassedRun> passed =
        List.of(
            new PassedRun("t1", "ci", "at://r/c/1", "at://p/1"),
            new PassedRun("t1", "lint", "at://r/c/2", "at://p/1"),
            new PassedRun("t1", "ci", "at://r/c/3", "at://p/2"));
    assertEquals("at://r/c/3", PassReuse.find(passed, "t1", "ci").orElseThrow().check());
    assertTrue(PassReuse.find(passed, "t2", "ci").isEmpty());
    assertEquals(Optional.empty(), PassReuse.whyNotTakenNow(Optional.of(CheckStatus.SUCCESS)));
    assertEquals(
        Optional.of("its check is failure now"),
        PassReuse.whyNotTakenNow(Optional.of(CheckStatus.FAILURE)));
    assertEquals(Optional.of("its check is gone"), PassReuse.whyNotTakenNow(Optional.empty()));
  }
}
