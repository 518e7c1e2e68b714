package dev.knotless.runner.state.pg;

import dev.knotless.runner.schedule.Admission;
import dev.knotless.runner.schedule.AdmissionGate;
import dev.knotless.runner.schedule.HeldElsewhere;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admissions of one worker of the distributed shape, serialized with every other worker's through
 * the shared {@code run_queue}: in one transaction, under an advisory lock all workers take, it
 * counts the runs other workers hold as {@code RUNNING} by owner, finds the workflows on a subject
 * where another worker holds a run filed before one of this worker's waiting runs, lets the
 * scheduler admit with those, and marks what it admitted {@code RUNNING} before the lock goes. So
 * an owner's {@code --owner-jobs} holds across replicas (no two workers can both admit the owner's
 * last job), and deploys filed on different workers go out in the order they were filed.
 *
 * <p>A database that cannot be reached does not stop runs: the scheduler then admits with nothing
 * counted elsewhere (the cap holds per replica only until the database answers again), and says so
 * once in the log. Thread-safe.
 */
public final class PgAdmissionGate implements AdmissionGate {
  private static final Logger LOG = LoggerFactory.getLogger(PgAdmissionGate.class);

  /** The advisory lock every worker's admissions take: "knotless" in ASCII. */
  static final long LOCK = 0x6b6e6f746c657373L;

  private final PgRunQueue queue;
  private final String worker;
  private volatile boolean warned;

  /**
   * @param queue the run queue every worker files in
   * @param worker this worker's id, as it holds its rows
   */
  public PgAdmissionGate(PgRunQueue queue, String worker) {
    this.queue = queue;
    this.worker = worker;
  }

  @Override
  public List<Admission> admit(Function<HeldElsewhere, List<Admission>> admit) {
    Connection c;
    HeldElsewhere elsewhere;
    try {
      c = queue.connection();
      c.setAutoCommit(false);
      try (PreparedStatement lock = c.prepareStatement("select pg_advisory_xact_lock(?)")) {
        lock.setLong(1, LOCK);
        lock.execute();
        elsewhere =
            new HeldElsewhere(
                PgRunQueue.runningElsewhere(c, worker), PgRunQueue.turnsElsewhere(c, worker));
      } catch (SQLException e) {
        close(c);
        throw e;
      }
    } catch (SQLException e) {
      if (!warned) {
        warned = true;
        LOG.warn(
            "owner caps and deploy turns count this worker's runs only until the database"
                + " answers: {}",
            e.toString());
      }
      return admit.apply(HeldElsewhere.NONE);
    }
    warned = false;
    List<Admission> admitted = admit.apply(elsewhere);
    try {
      if (!admitted.isEmpty()) {
        PgRunQueue.markRunning(
            c, admitted.stream().map(a -> rkey(a.runId())).toArray(String[]::new), worker);
      }
      c.commit();
    } catch (SQLException e) {
      // Admitted all the same: each run marks its own row running as it starts.
      LOG.warn("admitted runs not marked running now: {}", e.toString());
    } finally {
      close(c);
    }
    return admitted;
  }

  /** A run's check key: its id up to a {@code #}, which tells runs of one check apart. */
  private static String rkey(String runId) {
    int hash = runId.indexOf('#');
    return hash < 0 ? runId : runId.substring(0, hash);
  }

  private static void close(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      // committed already, or the connection is gone: nothing to undo
    }
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("closing an admission's connection: {}", e.toString());
    }
  }
}
