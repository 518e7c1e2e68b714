package dev.knotless.runner.mergequeue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TakeoverTest {

  @Test
  void aRunWhosePodLivesIsFollowedThereWhetherOrNotItWasMarkedStarted() {
    assertEquals(new Takeover.Action.Adopt(), Takeover.of(true, true));
    assertEquals(new Takeover.Action.Adopt(), Takeover.of(false, true));
  }

  @Test
  void aRunThatNeverStartedRunsUnderTheNewLeader() {
    assertEquals(new Takeover.Action.Run(), Takeover.of(false, false));
  }

  @Test
  void aStartedRunWhosePodIsGoneEndsAsAnErrorSayingKnotlessRerunRunsItAgain() {
    assertEquals(
        new Takeover.Action.EndAsError(
            "the runner stopped before this run started or finished; knotless rerun runs it again"),
        Takeover.of(true, false));
  }
}
