package dev.knotless.runner.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.check.CheckStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PreFlightsTest {

  @Test
  void aPullWithNoPreFlightsIsReady() {
    assertEquals(new PreFlights.Ready(), PreFlights.judge(List.of(), Set.of(), Map.of()));
  }

  @Test
  void preFlightsWithNoCheckAreRunHereWhenThisRunnerRunsThem() {
    assertEquals(
        new PreFlights.Waiting(List.of("lint")),
        PreFlights.judge(List.of("lint", "elsewhere"), Set.of("lint"), Map.of()));
  }

  @Test
  void aCancelledPreFlightIsRunAgain() {
    assertEquals(
        new PreFlights.Waiting(List.of("lint")),
        PreFlights.judge(List.of("lint"), Set.of("lint"), Map.of("lint", CheckStatus.CANCELLED)));
  }

  @Test
  void aPreFlightStartedOrPassedAnywhereIsNotRunAgain() {
    assertEquals(
        new PreFlights.Waiting(List.of()),
        PreFlights.judge(
            List.of("lint", "unit"),
            Set.of("lint", "unit"),
            Map.of("lint", CheckStatus.RUNNING, "unit", CheckStatus.SUCCESS)));
    assertEquals(
        new PreFlights.Ready(),
        PreFlights.judge(
            List.of("lint", "unit"),
            Set.of("lint"),
            Map.of("lint", CheckStatus.SUCCESS, "unit", CheckStatus.SUCCESS)));
  }

  @Test
  void aFailedPreFlightKeepsThePullOutAndWinsOverOnesStillRunning() {
    assertEquals(
        new PreFlights.Failed("unit", CheckStatus.ERROR),
        PreFlights.judge(
            List.of("lint", "unit"),
            Set.of("lint", "unit"),
            Map.of("lint", CheckStatus.QUEUED, "unit", CheckStatus.ERROR)));
  }
}
