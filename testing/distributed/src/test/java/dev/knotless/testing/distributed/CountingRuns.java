package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pushes whose one step ({@code count}) prints {@code line <i> of the run} a line at a time, as the
 * ITs that stop services mid-run use them: pushed and seen running, seen ended, and the log checked
 * whole.
 */
final class CountingRuns {

  private CountingRuns() {}

  /** Pushes a commit and waits until its run is filed as running; its SHA. */
  static String pushAndAwaitRunning(LocalDistributed shape, OwnerRepo owner, String what)
      throws Exception {
    owner.commit(Map.of("what", what));
    String sha = owner.push("main");
    Checks.await(
        Duration.ofSeconds(90),
        "the run of " + sha + " filed as running",
        () -> {
          for (Record r : Checks.all(shape)) {
            CheckRecord c = CheckRecord.fromJson(r.value());
            if (c.commit().equals(sha) && c.status() == CheckStatus.RUNNING) {
              return true;
            }
          }
          return false;
        });
    return sha;
  }

  /** The check of {@code workflow} at {@code sha} once it has ended. */
  static CheckRecord awaitEnded(LocalDistributed shape, String sha, String workflow)
      throws Exception {
    Record r =
        Checks.awaitOne(
            shape,
            Duration.ofSeconds(180),
            c -> c.commit().equals(sha) && c.workflow().equals(workflow) && c.status().ended());
    return CheckRecord.fromJson(r.value());
  }

  /** The check of {@code sha} once it has ended. */
  static CheckRecord awaitEnded(LocalDistributed shape, String sha) throws Exception {
    Record r =
        Checks.awaitOne(
            shape, Duration.ofSeconds(180), c -> c.commit().equals(sha) && c.status().ended());
    return CheckRecord.fromJson(r.value());
  }

  /** The check passed and its log holds every one of {@code lines} lines once, in order. */
  static void assertWholeLog(LocalDistributed shape, CheckRecord check, int lines)
      throws Exception {
    assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
    List<String> want = new ArrayList<>();
    want.add("==> count");
    for (int i = 1; i <= lines; i++) {
      want.add("line " + i + " of the run");
    }
    List<String> got = List.of(Checks.log(shape, check).split("\n"));
    // The run's pod is named first, once: the scheduler runs everyone's code in a pod of the
    // sandbox's RuntimeClass, as LocalDistributed has it.
    assertTrue(
        got.get(0)
            .matches(
                "pod knotless-\\S+ from knotless-test/busybox:1, runtime class "
                    + RunPods.SANDBOX_CLASS),
        got.get(0));
    assertEquals(want, got.subList(1, got.size()));
  }
}
