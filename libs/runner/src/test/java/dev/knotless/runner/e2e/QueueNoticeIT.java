package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --notice}: the merge queue's records read again every few seconds ring the door when no
 * frame brings them, with real pulls, a batch run in docker and the landing push.
 */
@WithPds
class QueueNoticeIT {

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void aQueueRecordNoFrameBringsIsReadWithinTheNoticeAndItsPullLands(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (QueueSetup q = new QueueSetup(pds, tmp, "true")) {
      q.open(1, Set.of());
      // Nothing answers on this port: no frame, and so no connection's ring, ever comes. The
      // sweep is an hour; only the start's ring and --notice ring the door.
      String silent = "ws://127.0.0.1:" + KafkaBroker.freePort() + "/subscribe";
      q.start("--jetstream", silent, "--sweep", "3600", "--notice", "2");
      q.runner.awaitWatched(q.repo);
      assertEquals(Map.of(), q.batchChecks(), "nothing queued yet");

      long t0 = System.nanoTime();
      q.queueAll();
      // Well inside a failed pass's retry (60 s): the batch is filed by the pass the notice rang.
      RunnerHarness.await(
          Duration.ofSeconds(40), "the batch filed", () -> batchFiled(q), () -> "none");
      System.out.printf(
          "[QueueNoticeIT] queue record to its batch filed: %d ms%n",
          (System.nanoTime() - t0) / 1_000_000);
      RunnerHarness.await(
          Duration.ofMinutes(2),
          "the pull merged (merged: %s)",
          () -> merged(q).contains(q.pulls.get(0)),
          () -> String.valueOf(merged(q)));
    }
  }

  private static boolean batchFiled(QueueSetup q) {
    try {
      return !q.batchChecks().isEmpty();
    } catch (Exception e) {
      return false;
    }
  }

  private static Set<String> merged(QueueSetup q) {
    try {
      return q.merged();
    } catch (Exception e) {
      return Set.of();
    }
  }
}
