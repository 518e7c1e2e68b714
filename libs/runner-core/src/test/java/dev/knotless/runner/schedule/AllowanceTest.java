package dev.knotless.runner.schedule;

import static dev.knotless.runner.schedule.Runs.main;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AllowanceTest {

  private static final String A = "did:plc:alice";
  private static final String B = "did:plc:bob";

  private static Harness withAllowance(
      long publicMinutes, long privateMinutes, String... unmetered) {
    return new Harness(
        SchedulerConfig.defaults(4, Harness.RUNNER)
            .withAllowances(publicMinutes, privateMinutes, Set.of(unmetered)));
  }

  @Test
  void anOwnerPastTheAllowanceRunsOneAtATimeAndIsToldSo() {
    Harness h = withAllowance(100, SchedulerConfig.UNLIMITED);
    h.usage.add(A, false, LocalDate.of(2026, 11, 20), Duration.ofMinutes(100).toMillis());
    h.submitAll(main("a1", A), main("a2", A), main("b1", B), main("b2", B));
    List<Admission> started = h.scheduler.admit(h.now);
    assertEquals(List.of("a1", "b1", "b2"), started.stream().map(Admission::runId).toList());
    assertTrue(started.get(0).pastAllowance(), "a1's log must say it goes one at a time");
    assertFalse(started.get(1).pastAllowance());
    assertEquals(WaitReason.ALLOWANCE, h.reasonOf("a2"));
    h.end("a1");
    assertEquals(List.of("a2"), h.admit(), "slower, but it still finishes");
  }

  @Test
  void usageOlderThanThirtyDaysNoLongerCounts() {
    Harness h = withAllowance(100, SchedulerConfig.UNLIMITED);
    h.usage.add(A, false, LocalDate.of(2026, 10, 30), Duration.ofMinutes(500).toMillis());
    h.submitAll(main("a1", A), main("a2", A));
    assertEquals(List.of("a1", "a2"), h.admit(), "2026-10-30 is 30 days before 11-29");
  }

  @Test
  void privateMinutesAreCountedApartFromPublicOnes() {
    Harness h = withAllowance(100, 10);
    h.usage.add(A, true, LocalDate.of(2026, 11, 29), Duration.ofMinutes(10).toMillis());
    h.submitAll(main("pub1", A), main("pub2", A), main("priv1", A).privateRepo());
    h.submitAll(main("priv2", A).privateRepo());
    assertEquals(List.of("pub1", "pub2", "priv1"), h.admit());
    assertEquals(WaitReason.ALLOWANCE, h.reasonOf("priv2"));
  }

  @Test
  void theRunnersOwnAccountAndUnmeteredOwnersAreNotHeldToIt() {
    Harness h = withAllowance(1, 1, B);
    h.usage.add(Harness.RUNNER, false, LocalDate.of(2026, 11, 29), 3_600_000);
    h.usage.add(B, false, LocalDate.of(2026, 11, 29), 3_600_000);
    h.submitAll(main("r1", Harness.RUNNER), main("r2", Harness.RUNNER));
    h.submitAll(main("b1", B), main("b2", B));
    assertEquals(4, h.admit().size());
  }

  @Test
  void withoutTheFlagNoOneIsHeldToAnAllowance() {
    Harness h = Harness.jobs(4);
    h.usage.add(A, false, LocalDate.of(2026, 11, 29), Duration.ofDays(20).toMillis());
    h.submitAll(main("a1", A), main("a2", A));
    assertEquals(List.of("a1", "a2"), h.admit());
  }

  @Test
  void stepTimeIsCountedOnTheDayTheRunEnds() {
    Harness h = withAllowance(10, SchedulerConfig.UNLIMITED);
    h.submitAll(main("a1", A));
    h.admit();
    h.now = Instant.parse("2026-11-30T00:05:00Z");
    RunEnded ended = h.finish("a1", Duration.ofMinutes(11));
    assertEquals(LocalDate.of(2026, 11, 30), ended.day());
    assertEquals(11 * 60_000L, h.usage.usedMillis(A, false, ended.day()));
  }

  @Test
  void theMinutesRecordIsWrittenAtMostEveryFiveMinutesButAtOnceAtEightyAndHundredPercent() {
    Harness h = withAllowance(100, 100);
    String[] ids = {"a1", "a2", "a3", "a4", "a5"};
    long[] minutes = {10, 10, 60, 10, 20};
    boolean[] writes = new boolean[ids.length];
    for (int i = 0; i < ids.length; i++) {
      h.submitAll(main(ids[i], A));
      h.admit();
      h.now = h.now.plusSeconds(60);
      writes[i] = h.finish(ids[i], Duration.ofMinutes(minutes[i])).writeMinutesNow();
    }
    // 10 (first: write), 20 (1 min later: held), 80 (reaches 80%: write), 90 (held), 110 (write)
    assertEquals("[true, false, true, false, true]", java.util.Arrays.toString(writes));
    assertEquals(
        List.of(), h.scheduler.minutesDue(h.now), "nothing held back after the last write");
    h.submitAll(main("a6", A));
    h.admit();
    h.now = h.now.plusSeconds(30);
    assertFalse(h.finish("a6", Duration.ofMinutes(1)).writeMinutesNow());
    assertEquals(List.of(), h.scheduler.minutesDue(h.now.plusSeconds(200)));
    assertEquals(List.of(A), h.scheduler.minutesDue(h.now.plusSeconds(300)));
    MinutesRecord record = h.scheduler.minutesRecord(A, h.now);
    assertEquals(111, record.minutes());
    assertEquals(100, record.allowanceMinutes());
    assertEquals(Instant.parse("2026-12-29T00:00:00Z"), record.stopsCountingAt());
  }

  @Test
  void privateRunsNeverAskForTheMinutesRecord() {
    Harness h = withAllowance(100, 100);
    h.submitAll(main("p1", A).privateRepo());
    h.admit();
    assertFalse(h.finish("p1", Duration.ofMinutes(90)).writeMinutesNow());
    assertEquals(0, h.scheduler.minutesRecord(A, h.now).minutes());
  }
}
