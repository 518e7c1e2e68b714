package dev.knotless.run.reconciler.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgRunQueue;
import dev.knotless.runner.state.pg.PgStateStores;
import dev.knotless.testing.infra.EmbeddedPg;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * After an upgrade to pods, the reconcilers only queue; runs that a reconciler of the old version
 * held when it stopped (rows with no order, which the scheduler never takes) are still filed again
 * by the queueing reconcilers, while rows with an order, the scheduler's, are left to it.
 */
class StaleRunsIT {
  private static final Duration STALE = Duration.ofMinutes(1);
  private static final String REPO = "did:plc:alice/app";
  private static final String MAIN = "refs/heads/main";
  private static final String ORDER = "{\"version\":\"1.1\"}";

  private static EmbeddedPg pg;
  private static PgRunQueue queue;
  private static StateStore state;

  @BeforeAll
  static void start() throws Exception {
    pg = EmbeddedPg.start();
    state = PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setUrl(pg.jdbcUrl());
    db.setUser("postgres");
    db.setPassword("postgres");
    queue = new PgRunQueue(db);
  }

  @AfterAll
  static void stop() throws Exception {
    pg.close();
  }

  private static PgRunQueue.Run run(String key, String commit, String order) {
    return new PgRunQueue.Run(
        key, REPO, "did:plc:alice", RunClass.MAIN, "ci", commit, MAIN, null, order);
  }

  @Test
  void aQueueingReconcilerFilesAgainWhatAnOldWorkerHandedBackAndLeavesTheSchedulersRows()
      throws Exception {
    String c1 = "1".repeat(40);
    String c2 = "2".repeat(40);
    // An old reconciler held a run it ran itself, and handed it back as it stopped.
    assertTrue(queue.claim(run("old-run", c1, null), "worker-old", STALE));
    assertTrue(queue.releaseOne("old-run", "worker-old"));
    // The scheduler holds a run with an order; its leader went silent too.
    assertTrue(queue.file(run("pod-run", c2, ORDER)));
    assertTrue(queue.claim(run("pod-run", c2, ORDER), "scheduler-1", STALE));
    queue.release("scheduler-1");

    List<String> rung = new ArrayList<>();
    List<RunEvent> published = new ArrayList<>();
    StaleRuns stale =
        new StaleRuns(
            queue,
            state,
            STALE,
            published::add,
            (repo, bell) -> rung.add(repo + " " + Doorbell.RETRY.equals(bell)),
            Clock.systemUTC());
    stale.recover("worker-new", true);

    assertEquals(List.of(REPO + " true"), rung, "the old run's repository rung once, to retry");
    List<DroppedRun> dropped = state.load(REPO).orElseThrow().dropped();
    assertEquals(1, dropped.size(), dropped.toString());
    assertEquals(c1, dropped.get(0).commit(), "the old run is filed again at its commit");
    List<String> left = new ArrayList<>();
    for (PgRunQueue.Row r : queue.stale(STALE)) {
      left.add(r.run().checkKey());
    }
    assertEquals(List.of("pod-run"), left, "the scheduler's row is left to the scheduler");
    assertEquals(List.of(), published, "nothing ended: the old run is run again");
  }
}
