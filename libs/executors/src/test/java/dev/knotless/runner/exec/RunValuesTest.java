package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunValuesTest {

  private static final Instant T = Instant.parse("2026-11-29T10:00:00Z");
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  private static StepResult step(String name, StepStatus status) {
    return new StepResult(name, status, T, T, 0, "");
  }

  @Test
  void runIsCancelledIfAStepWasElseFailedIfOneFailedElsePassed() {
    assertEquals(
        new RunOutcome.Cancelled("a newer commit"),
        RunOutcome.of(
            List.of(step("a", StepStatus.FAILURE), step("b", StepStatus.CANCELLED)),
            "a newer commit"));
    assertEquals(
        new RunOutcome.Failed("b"),
        RunOutcome.of(List.of(step("a", StepStatus.SUCCESS), step("b", StepStatus.FAILURE)), null));
    assertEquals(
        new RunOutcome.Passed(),
        RunOutcome.of(List.of(step("a", StepStatus.SKIPPED), step("b", StepStatus.SUCCESS)), null));
  }

  @Test
  void cancelThatCameAfterTheLastStepEndedLeavesTheRunAsItWas() {
    assertEquals(
        new RunOutcome.Passed(), RunOutcome.of(List.of(step("a", StepStatus.SUCCESS)), "a stop"));
  }

  @Test
  void firstCancelReasonIsKept() {
    RunCancellation c = new RunCancellation();
    assertTrue(c.cancel("its pull closed"));
    assertFalse(c.cancel("a newer commit"));
    assertEquals("its pull closed", c.reason().orElseThrow());
  }

  @Test
  void cancelThatLandsAsAStepStartsStillKillsIt() {
    RunCancellation c = new RunCancellation();
    c.cancel("a stop");
    int[] kills = {0};
    c.attach(() -> kills[0]++);
    assertEquals(1, kills[0]);
  }

  @Test
  void badCommitIsRefusedByValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                RunSpec.of(
                    Path.of("m"),
                    "--upload-pack=x",
                    List.of(ExecStep.run("a", "true", Duration.ZERO))));
    assertTrue(e.getMessage().contains("\"--upload-pack=x\""), e.getMessage());
  }

  @Test
  void badEnvironmentNameIsRefusedWithoutShowingTheValue() {
    RunSpec ok = RunSpec.of(Path.of("m"), SHA, List.of(ExecStep.run("a", "true", Duration.ZERO)));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ok.withEnv(Map.of("A=B", "hunter22")));
    assertTrue(e.getMessage().contains("\"A=B\""), e.getMessage());
    assertFalse(e.getMessage().contains("hunter22"), e.getMessage());
  }

  @Test
  void stepNameOfSeveralLinesIsRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> ExecStep.run("a\n==> b", "true", Duration.ZERO));
  }

  @Test
  void logSaysWholeSecondsWithoutAFraction() {
    assertEquals("1800", StepsRun.seconds(Duration.ofSeconds(1800)));
    assertEquals("1.5", StepsRun.seconds(Duration.ofMillis(1500)));
  }
}
