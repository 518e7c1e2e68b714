package dev.knotless.cli.checks;

import static dev.knotless.cli.checks.Checks.check;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CheckWatchTest {
  static final String REF = "mainmainmainmainmainmainmm";
  static final String C = "1".repeat(40);
  final Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:05:00Z"), ZoneOffset.UTC);

  private static CheckEntry withSteps(CheckEntry c, String... nameStatus) {
    ObjectNode v = (ObjectNode) c.value();
    for (int i = 0; i < nameStatus.length; i += 2) {
      v.withArray("steps")
          .addObject()
          .put("name", nameStatus[i])
          .put("status", nameStatus[i + 1])
          .put("startedAt", "2026-11-29T10:00:00Z")
          .put("endedAt", "2026-11-29T10:00:02Z");
    }
    return c;
  }

  private static String watch(CheckWatch w, CheckEntry start, List<Duration> slept)
      throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    w.until(start, new PrintStream(b, true, StandardCharsets.UTF_8), Colors.OFF);
    return b.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aWatchSaysEachStatusAndEachStepOnceThenEndsWithTheChecksExitCode() throws Exception {
    Deque<CheckEntry> next =
        new ArrayDeque<>(
            List.of(
                check(REF, C, "test", "queued", null, null),
                check(REF, C, "test", "running", "2026-11-29T10:00:00Z", null),
                check(REF, C, "test", "running", "2026-11-29T10:00:00Z", null),
                withSteps(
                    check(
                        REF, C, "test", "failure", "2026-11-29T10:00:00Z", "2026-11-29T10:00:04Z"),
                    "build",
                    "success",
                    "test",
                    "failure")));
    List<Duration> slept = new java.util.ArrayList<>();
    CheckWatch w =
        new CheckWatch(c -> Optional.of(next.pop()), slept::add, Duration.ofSeconds(2), clock);
    CheckEntry first = next.pop();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    CheckEntry ended = w.until(first, new PrintStream(b, true, StandardCharsets.UTF_8), Colors.OFF);
    assertEquals(
        List.of(
            "test at 111111111111: queued",
            "test at 111111111111: running",
            "test at 111111111111: failure",
            "  step build: success 2s",
            "  step test: failure 2s"),
        b.toString(StandardCharsets.UTF_8).lines().toList());
    assertEquals(3, slept.size());
    assertEquals(1, CheckWatch.exitCode(ended));
    assertEquals(0, CheckWatch.exitCode(check(REF, C, "test", "success", null, null)));
    assertEquals(1, CheckWatch.exitCode(check(REF, C, "test", "error", null, null)));
    assertEquals(1, CheckWatch.exitCode(check(REF, C, "test", "cancelled", null, null)));
  }

  @Test
  void aCheckAlreadyEndedIsNotWaitedOnAndOneDeletedWhileWatchedFailsSayingSo() throws Exception {
    List<Duration> slept = new java.util.ArrayList<>();
    CheckWatch w = new CheckWatch(c -> Optional.empty(), slept::add, Duration.ofSeconds(2), clock);
    assertEquals(
        "test at 111111111111: success\n",
        watch(w, check(REF, C, "test", "success", null, null), slept));
    assertEquals(List.of(), slept);
    IOException e =
        assertThrows(
            IOException.class, () -> watch(w, check(REF, C, "test", "running", null, null), slept));
    assertEquals(true, e.getMessage().contains("deleted while watched"), e.getMessage());
  }
}
