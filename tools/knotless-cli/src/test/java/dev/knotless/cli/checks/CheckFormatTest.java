package dev.knotless.cli.checks;

import static dev.knotless.cli.checks.Checks.check;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckFormatTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  @Test
  void durationsReadInTheirTwoLargestUnitsAndACheckStillGoingCountsToNow() {
    assertEquals("850ms", Durations.of(Duration.ofMillis(850)));
    assertEquals("42s", Durations.of(Duration.ofSeconds(42)));
    assertEquals("3m07s", Durations.of(Duration.ofSeconds(187)));
    assertEquals("2h05m", Durations.of(Duration.ofMinutes(125)));
    assertEquals("-", Durations.between(null, null, NOW));
    assertEquals("1m00s+", Durations.between(NOW.minusSeconds(60), null, NOW));
    assertEquals("2026-11-29 12:00:00Z", Durations.when(NOW));
  }

  @Test
  void theListingHasOneLinePerCheckWithItsNameStartDurationAndStatus() {
    CheckEntry a =
        check(
            "mainmainmainmainmainmainmm",
            "1".repeat(40),
            "test",
            "success",
            "2026-11-29T10:00:00Z",
            "2026-11-29T10:01:03Z");
    CheckEntry b =
        check(
            "mainmainmainmainmainmainmm",
            "2".repeat(40),
            "lint",
            "running",
            "2026-11-29T11:59:30Z",
            null);
    List<String> lines =
        CheckFormat.list(List.of(b, a), List.of(a, b), NOW, Colors.OFF).lines().toList();
    assertEquals(3, lines.size());
    assertTrue(lines.get(0).startsWith("CHECK    STARTED"), lines.get(0));
    assertEquals(
        List.of(
            "2222222",
            "2026-11-29",
            "11:59:30Z",
            "30s+",
            "lint",
            "refs/heads/main",
            "222222222222",
            "running"),
        List.of(lines.get(1).split(" +")));
    assertTrue(lines.get(2).contains("1m03s") && lines.get(2).contains("success"), lines.get(2));
  }

  @Test
  void theDetailShowsStepsNoteOutputsRunnerAndLog() {
    CheckEntry c =
        check(
            "mainmainmainmainmainmainmm",
            "1".repeat(40),
            "test",
            "failure",
            "2026-11-29T10:00:00Z",
            "2026-11-29T10:00:10Z");
    ObjectNode v = (ObjectNode) c.value();
    v.put("note", "step test failed");
    ObjectNode s = v.withArray("steps").addObject();
    s.put("name", "build")
        .put("status", "success")
        .put("startedAt", "2026-11-29T10:00:00Z")
        .put("endedAt", "2026-11-29T10:00:04Z");
    v.withArray("steps")
        .addObject()
        .put("name", "test")
        .put("status", "failure")
        .put("startedAt", "2026-11-29T10:00:04Z")
        .put("endedAt", "2026-11-29T10:00:10Z")
        .put("note", "exit 1");
    v.withArray("steps")
        .addObject()
        .put("name", "deploy")
        .put("status", "skipped")
        .put("note", "a step before it failed");
    v.putObject("log")
        .put("$type", "blob")
        .put("mimeType", "text/plain")
        .put("size", 1234)
        .putObject("ref")
        .put("$link", "bafylog");
    v.withArray("outputs")
        .addObject()
        .put("$type", "dev.knotless.check#textOutput")
        .put("name", "coverage")
        .put("text", "81%");
    String out = CheckFormat.detail(c, NOW, Colors.OFF);
    assertTrue(out.contains("runner    did:plc:runner"), out);
    assertTrue(out.contains("note      step test failed"), out);
    assertTrue(out.contains("log       bafylog (1234 bytes)"), out);
    assertTrue(out.contains("duration  10s"), out);
    assertTrue(out.lines().anyMatch(l -> l.matches("build +success +4s")), out);
    assertTrue(out.lines().anyMatch(l -> l.matches("test +failure +6s +exit 1")), out);
    assertTrue(
        out.lines().anyMatch(l -> l.matches("deploy +skipped +- +a step before it failed")), out);
    assertTrue(out.contains("  coverage: 81%"), out);
    assertFalse(out.contains("\u001b["), out);
  }

  @Test
  void colourIsOnForATerminalUnlessNoColorIsSetAndAlwaysOrNeverDecideAlone() {
    assertTrue(Colors.decide(Colors.Mode.auto, Map.of(), true).on());
    assertFalse(Colors.decide(Colors.Mode.auto, Map.of(), false).on());
    assertFalse(Colors.decide(Colors.Mode.auto, Map.of("NO_COLOR", "1"), true).on());
    assertTrue(Colors.decide(Colors.Mode.auto, Map.of("NO_COLOR", ""), true).on());
    assertTrue(Colors.decide(Colors.Mode.always, Map.of("NO_COLOR", "1"), false).on());
    assertFalse(Colors.decide(Colors.Mode.never, Map.of(), true).on());
    assertEquals("\u001b[31mfailure\u001b[0m", new Colors(true).status("failure"));
    assertEquals("failure", Colors.OFF.status("failure"));
  }
}
