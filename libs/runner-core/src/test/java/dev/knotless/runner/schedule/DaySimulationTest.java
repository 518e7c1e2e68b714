package dev.knotless.runner.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DaySimulationTest {

  @Test
  void aDayOfMixedTrafficKeepsMainFastAndABurstFromStarvingOtherOwners() {
    DaySimulation.Report r = new DaySimulation(1).run();
    System.out.print(DaySimulation.describe(r));
    assertTrue(
        r.longestMainWaitMillis() <= Duration.ofMinutes(6).toMillis(),
        "a MAIN run waited " + r.longestMainWaitMillis() / 1000 + " s");
    assertTrue(
        r.longestOtherOwnersPullWaitMillis() <= Duration.ofMinutes(30).toMillis(),
        "another owner's pull waited "
            + r.longestOtherOwnersPullWaitMillis() / 1000
            + " s behind the burst");
    assertTrue(
        r.share(DaySimulation.BURST) <= 0.5, "the burst owner took more than pull jobs' half");
    List<String> expected = new ArrayList<>();
    for (int h = 0; h < 24; h++) {
      expected.add("site-" + h);
    }
    assertEquals(expected, r.deploysStarted(), "every hourly deploy went out, in order");
  }
}
