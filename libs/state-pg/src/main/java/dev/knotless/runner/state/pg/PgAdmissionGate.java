package dev.knotless.runner.state.pg;

import dev.knotless.runner.schedule.Admission;
import dev.knotless.runner.schedule.AdmissionGate;
import dev.knotless.runner.schedule.HeldElsewhere;
import dev.knotless.runner.schedule.RunRequest.WorkKey;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;
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

  private final DataSource db;
  private final String worker;
  private volatile boolean warned;

  /**
   * @param db the database holding {@code run_queue}
   * @param worker this worker's id, as it holds its rows
   */
  public PgAdmissionGate(DataSource db, String worker) {
    this.db = db;
    this.worker = worker;
  }

  @Override
  public List<Admission> admit(Function<HeldElsewhere, List<Admission>> admit) {
    Connection c;
    HeldElsewhere elsewhere;
    try {
      c = db.getConnection();
      c.setAutoCommit(false);
      try (PreparedStatement lock = c.prepareStatement("select pg_advisory_xact_lock(?)")) {
        lock.setLong(1, LOCK);
        lock.execute();
        elsewhere = new HeldElsewhere(jobsElsewhere(c), turnsElsewhere(c));
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
        markRunning(c, admitted);
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

  private Map<String, Integer> jobsElsewhere(Connection c) throws SQLException {
    Map<String, Integer> out = new HashMap<>();
    try (PreparedStatement q =
        c.prepareStatement(
            "select owner_did, count(*) from run_queue where state = 'RUNNING'"
                + " and worker is distinct from ? group by owner_did")) {
      q.setString(1, worker);
      try (ResultSet r = q.executeQuery()) {
        while (r.next()) {
          out.put(r.getString(1), r.getInt(2));
        }
      }
    }
    return out;
  }

  /**
   * The workflows on a subject where a run another worker holds (waiting, running, or handed back
   * and not yet filed again) was filed before one waiting here. Only a {@code superseded: finish}
   * run here heeds them; the order of {@code created_seq} is the order runs were filed.
   */
  private Set<WorkKey> turnsElsewhere(Connection c) throws SQLException {
    Set<WorkKey> out = new HashSet<>();
    try (PreparedStatement q =
        c.prepareStatement(
            "select distinct o.repo, o.subject, o.workflow from run_queue o join run_queue m"
                + " on m.repo = o.repo and m.subject = o.subject and m.workflow = o.workflow"
                + " where m.worker = ? and m.state = 'WAITING'"
                + " and o.worker is distinct from ? and o.created_seq < m.created_seq")) {
      q.setString(1, worker);
      q.setString(2, worker);
      try (ResultSet r = q.executeQuery()) {
        while (r.next()) {
          out.add(new WorkKey(r.getString(1), r.getString(2), r.getString(3)));
        }
      }
    }
    return out;
  }

  private void markRunning(Connection c, List<Admission> admitted) throws SQLException {
    String[] keys = admitted.stream().map(a -> rkey(a.runId())).toArray(String[]::new);
    try (PreparedStatement u =
        c.prepareStatement(
            "update run_queue set state = 'RUNNING', started_at = now()"
                + " where check_key = any(?) and worker = ? and state = 'WAITING'")) {
      Array array = c.createArrayOf("text", keys);
      u.setArray(1, array);
      u.setString(2, worker);
      u.executeUpdate();
    }
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
