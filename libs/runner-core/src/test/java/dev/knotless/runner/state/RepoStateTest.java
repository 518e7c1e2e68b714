package dev.knotless.runner.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RepoStateTest {

  @Test
  void atMost256PassedRunsAreKeptTheOldestGoingFirst() {
    RepoState s = RepoState.empty();
    for (int i = 0; i < 300; i++) {
      s = s.withPassed(new PassedRun("t" + i, "ci", "at://c/" + i, "at://p"));
    }
    assertEquals(256, s.passed().size());
    assertEquals("t44", s.passed().get(0).tree());
    assertEquals("t299", s.passed().get(255).tree());
  }

  @Test
  void usageIsKeptForThirtyDaysOnly() {
    LocalDate today = LocalDate.of(2026, 11, 29);
    RepoState s =
        RepoState.empty()
            .withUsage(LocalDate.of(2026, 10, 30), 5, false, LocalDate.of(2026, 10, 30))
            .withUsage(LocalDate.of(2026, 10, 31), 7, false, LocalDate.of(2026, 10, 31))
            .withUsage(today, 1, false, today);
    assertEquals(Map.of(LocalDate.of(2026, 10, 31), 7L, today, 1L), s.used());
  }

  @Test
  void runsDroppedAtOnePlaceMergeAndAForgottenRefForgetsThem() {
    RepoState s =
        RepoState.empty()
            .withRef("refs/heads/main", 4)
            .withDropped(new DroppedRun("refs/heads/main", "c4", "", List.of("ci")))
            .withDropped(new DroppedRun("refs/heads/main", "c4", "", List.of("deploy", "ci")));
    assertEquals(
        List.of(new DroppedRun("refs/heads/main", "c4", "", List.of("ci", "deploy"))), s.dropped());
    RepoState forgotten = s.forgetRef("refs/heads/main");
    assertEquals(Map.of(), forgotten.refs());
    assertEquals(List.of(), forgotten.dropped());
  }

  @Test
  void askingForAPullInFullClearsAnEarlierAskForSomeWorkflows() {
    String pull = "at://did:plc:bob/dev.knotless.pull/1";
    RepoState s = RepoState.empty().withAsked(pull, java.util.Set.of("lint"));
    assertEquals(Map.of(pull, java.util.Set.of("lint")), s.askedOnly());
    assertEquals(Map.of(), s.withAsked(pull, java.util.Set.of()).askedOnly());
  }
}
