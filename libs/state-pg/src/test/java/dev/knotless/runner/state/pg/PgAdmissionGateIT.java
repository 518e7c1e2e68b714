package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.schedule.HeldElsewhere;
import dev.knotless.runner.schedule.RunRequest.WorkKey;
import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What one worker's admission is told the other workers hold, read from a real {@code run_queue}:
 * jobs by owner, and the deploy turns a run filed on another worker before one waiting here holds.
 */
class PgAdmissionGateIT {
  private static final String SITE = "did:plc:alice/site";
  private static final String MAIN = "refs/heads/main";

  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void emptyTheQueue() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate run_queue");
    }
  }

  @Test
  void aDeployFiledOnAnotherWorkerFirstHoldsTheTurnOverOneWaitingHere() throws Exception {
    file(1, "a", "deploy", MAIN, "WAITING"); // filed first, on a, still waiting for a job
    file(2, "b", "deploy", MAIN, "WAITING");
    file(3, "b", "ci", MAIN, "WAITING");
    file(4, "a", "ci", MAIN, "RUNNING");

    HeldElsewhere seenByB = seen("b");
    assertEquals(Set.of(new WorkKey(SITE, MAIN, "deploy")), seenByB.turns(), "b's deploy waits");
    assertEquals(Map.of("did:plc:alice", 1), seenByB.ownerJobs(), "a runs one of alice's jobs");
    assertEquals(Set.of(), seen("a").turns(), "a's deploy, filed first, waits on nothing");
  }

  @Test
  void aRunHandedBackAtAStopStillHoldsItsTurnUntilItIsFiledAgain() throws Exception {
    file(1, "a/handed-back", "deploy", MAIN, "WAITING");
    file(2, "b", "deploy", MAIN, "WAITING");
    file(3, "b", "deploy", "refs/heads/next", "WAITING");

    assertEquals(Set.of(new WorkKey(SITE, MAIN, "deploy")), seen("b").turns());
  }

  @Test
  void aRunFiledElsewhereAfterTheOneHereHoldsNothingOverIt() throws Exception {
    file(1, "b", "deploy", MAIN, "WAITING");
    file(2, "a", "deploy", MAIN, "RUNNING");

    assertEquals(Set.of(), seen("b").turns());
  }

  private static HeldElsewhere seen(String worker) {
    AtomicReference<HeldElsewhere> seen = new AtomicReference<>();
    new PgAdmissionGate(new PgRunQueue(db), worker)
        .admit(
            elsewhere -> {
              seen.set(elsewhere);
              return List.of();
            });
    return seen.get();
  }

  private static void file(int seq, String worker, String workflow, String subject, String state)
      throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into run_queue (id, check_key, repo, owner_did, run_class, state, workflow,"
                    + " commit_id, created_seq, created_at, worker, heartbeat_at, subject)"
                    + " values (?, ?, ?, 'did:plc:alice', 'MAIN', ?, ?, ?, ?, now(), ?, now(), ?)")) {
      s.setLong(1, seq);
      s.setString(2, "key-" + seq);
      s.setString(3, SITE);
      s.setString(4, state);
      s.setString(5, workflow);
      s.setString(6, "c" + seq);
      s.setLong(7, seq);
      s.setString(8, worker);
      s.setString(9, subject);
      s.executeUpdate();
    }
  }
}
