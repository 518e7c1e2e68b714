package dev.knotless.runner.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.schedule.RunClass;
import org.junit.jupiter.api.Test;

class KeyCheckTest {

  @Test
  void theSameKeyGoesOn() {
    assertEquals(new KeyCheck.Same(), KeyCheck.compare("alice.test/site", "3ka", "3ka", true));
  }

  @Test
  void aChangedKeyWhoseOldRepositoryIsGoneMeansTheRepositoryWasDeleted() {
    assertEquals(
        new KeyCheck.Deleted("3ka"), KeyCheck.compare("alice.test/site", "3ka", "3kb", false));
    assertEquals(
        new KeyCheck.Deleted("3ka"), KeyCheck.compare("alice.test/site", "3ka", null, false));
  }

  @Test
  void aChangedKeyWhileTheOldRepositoryExistsFailsThePassSayingWhy() {
    assertEquals(
        new KeyCheck.Changed(
            "alice.test/site now names repository 3kb, not 3ka that the runner was watching"),
        KeyCheck.compare("alice.test/site", "3ka", "3kb", true));
  }

  @Test
  void runsByNameRankAskedAndBatchesByWhetherTheyLandNext() {
    assertEquals(RunClass.ASKED, RunClasses.forAsked());
    assertEquals(RunClass.MAIN, RunClasses.forBatch(true));
    assertEquals(RunClass.LATER, RunClasses.forBatch(false));
    assertEquals(RunClass.OTHER, RunClasses.forPull(false));
    assertEquals(RunClass.LATER, RunClasses.forPull(true));
  }
}
