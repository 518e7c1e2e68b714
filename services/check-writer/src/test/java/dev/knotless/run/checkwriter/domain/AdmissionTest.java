package dev.knotless.run.checkwriter.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.state.pg.PgRunQueue.IssuedRun;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdmissionTest {
  private static final IssuedRun ISSUED = new IssuedRun("did:plc:owner/3krepo", "c1", "ci");

  private static RunEvent.Filed filed(String repoKey, String commit, String workflow) {
    return new RunEvent.Filed(
        "k",
        Instant.EPOCH,
        "did:plc:owner",
        repoKey,
        "refs/heads/main",
        null,
        commit,
        null,
        workflow,
        null,
        false);
  }

  @Test
  void aFiledEventNamingTheQueuedRunIsAdmitted() {
    assertTrue(Admission.refusal(filed("3krepo", "c1", "ci"), Optional.of(ISSUED)).isEmpty());
  }

  @Test
  void aFiledEventForACheckKeyNeverQueuedIsRefusedSayingSo() {
    assertEquals(
        Optional.of("no run with check key k was queued"),
        Admission.refusal(filed("3krepo", "c1", "ci"), Optional.empty()));
  }

  @Test
  void aFiledEventWithAnotherCommitWorkflowOrRepositoryIsRefusedNamingBoth() {
    assertEquals(
        Optional.of("the queued run k checks commit c1, not c2"),
        Admission.refusal(filed("3krepo", "c2", "ci"), Optional.of(ISSUED)));
    assertEquals(
        Optional.of("the queued run k runs workflow ci, not deploy"),
        Admission.refusal(filed("3krepo", "c1", "deploy"), Optional.of(ISSUED)));
    assertEquals(
        Optional.of("the queued run k is of repository did:plc:owner/3krepo, not did:plc:owner/x"),
        Admission.refusal(filed("x", "c1", "ci"), Optional.of(ISSUED)));
  }
}
