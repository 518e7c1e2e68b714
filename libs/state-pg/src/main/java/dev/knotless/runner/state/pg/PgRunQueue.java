package dev.knotless.runner.state.pg;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest.WorkKey;
import dev.knotless.runner.schedule.WaitReason;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The run queue in PostgreSQL, {@code run_queue} (migrations V2, V3, V4 and V9), and the record of
 * every run it issued, {@code run_issued} (V5): the one class that reads or writes either table.
 * Reconcilers file runs here (held by their own worker, or left with an order for the scheduler),
 * the scheduler takes the ordered ones, {@link PgAdmissionGate} counts what other workers hold, and
 * {@link PgCheckLedger} asks what was issued.
 *
 * <p>A row is filed {@code WAITING} and turns {@code RUNNING} once; its worker stamps it alive, and
 * a row whose stamp is older than a worker's {@code staleAfter} belongs to a worker that died.
 * Every time is the database's clock, so workers whose clocks drift agree on who is stale. Plain
 * JDBC for callers that block anyway; each call takes its own connection from the pool and closes
 * it before returning, so the class is thread-safe.
 */
public final class PgRunQueue {

  /**
   * What a run is filed with.
   *
   * @param checkKey the check's record key, unique in the queue
   * @param repo {@code <owner did>/<repo key>}
   * @param ownerDid the repository owner's DID, which owner caps count by
   * @param runClass the class the run is ranked in
   * @param workflow the workflow's name
   * @param commit the commit the run checks (a pull's head)
   * @param subject the full ref the run checks, or null
   * @param baseCommit the base commit of a pull or batch, or null
   * @param order the run's order as JSON, for the scheduler, or null for a run a reconciler's own
   *     worker runs
   */
  public record Run(
      String checkKey,
      String repo,
      String ownerDid,
      RunClass runClass,
      String workflow,
      String commit,
      String subject,
      String baseCommit,
      String order) {}

  /**
   * A row as read: the run, {@code WAITING} or {@code RUNNING}, and the worker holding it (null for
   * none).
   */
  public record Row(Run run, String state, String worker) {}

  /**
   * What the queue issued under a check key.
   *
   * @param repo {@code <owner did>/<repo key>}
   * @param commit the commit the run checks
   * @param workflow the workflow's name
   */
  public record IssuedRun(String repo, String commit, String workflow) {}

  private static final String COLUMNS =
      "check_key, repo, owner_did, run_class, workflow, commit_id, subject, base_commit,"
          + " run_order, state, worker";

  private final DataSource db;

  /**
   * @param db the database, its schema migrated by Flyway
   */
  public PgRunQueue(DataSource db) {
    this.db = db;
  }

  /**
   * Files a run as waiting, held by {@code worker}, after every run filed before it, unless another
   * worker alive within {@code staleAfter} holds the same check: then the queue stays as it was. A
   * check whose worker is stale is taken over. One statement, so two workers filing the same check
   * at once cannot both win.
   *
   * @return whether {@code worker} now holds the run
   */
  public boolean claim(Run run, String worker, Duration staleAfter) throws SQLException {
    return !query(
            "insert into run_queue (id, check_key, repo, owner_did, run_class, state, workflow,"
                + " commit_id, created_seq, created_at, worker, heartbeat_at, subject, base_commit)"
                + " values (nextval('run_queue_seq'), ?, ?, ?, ?, 'WAITING', ?, ?,"
                + " nextval('run_queue_order'), now(), ?, now(), ?, ?)"
                + " on conflict (check_key) do update set worker = excluded.worker,"
                + " heartbeat_at = excluded.heartbeat_at, state = 'WAITING', started_at = null,"
                + " cancel_reason = null where run_queue.heartbeat_at is null"
                + " or run_queue.heartbeat_at < now() - ? * interval '1 millisecond'"
                + " returning check_key",
            r -> r.getString(1),
            run.checkKey(),
            run.repo(),
            run.ownerDid(),
            run.runClass().name(),
            run.workflow(),
            run.commit(),
            worker,
            run.subject(),
            run.baseCommit(),
            staleAfter.toMillis())
        .isEmpty();
  }

  /**
   * Files a run as waiting, held by no one, with its order (for the scheduler) if it has one; a
   * check key queued already (a second pass, a redelivered doorbell) leaves the queue as it was.
   *
   * @return whether the run was filed now
   */
  public boolean file(Run run) throws SQLException {
    return file(run, null);
  }

  /**
   * As {@link #file(Run)}, the row naming {@code traceParent} (a W3C {@code traceparent}, or null)
   * as the trace the run continues ({@link #traceOf}).
   */
  public boolean file(Run run, String traceParent) throws SQLException {
    return update(
            "insert into run_queue (id, check_key, repo, owner_did, run_class, state, workflow,"
                + " commit_id, created_seq, created_at, subject, base_commit, run_order,"
                + " trace_parent) values (nextval('run_queue_seq'), ?, ?, ?, ?, 'WAITING', ?, ?,"
                + " nextval('run_queue_order'), now(), ?, ?, ?, ?) on conflict (check_key) do nothing",
            run.checkKey(),
            run.repo(),
            run.ownerDid(),
            run.runClass().name(),
            run.workflow(),
            run.commit(),
            run.subject(),
            run.baseCommit(),
            run.order(),
            traceParent)
        > 0;
  }

  /** The trace a queued run continues, as it was filed; empty for none or no such row. */
  public java.util.Optional<String> traceOf(String checkKey) throws SQLException {
    List<String> found =
        query(
            "select trace_parent from run_queue where check_key = ?",
            r -> r.getString(1),
            checkKey);
    return found.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.ofNullable(found.get(0));
  }

  /**
   * Issues a run that takes no queue row (one ended as it is filed), so the check-writer files its
   * events; a run that takes a row is issued by the row's insert (migration V5's trigger).
   *
   * @return whether a row of {@code run_issued} was written
   */
  public boolean issue(Run run) throws SQLException {
    return update(
            "insert into run_issued (check_key, repo, commit_id, workflow) values (?, ?, ?, ?)"
                + " on conflict (check_key) do update set repo = excluded.repo,"
                + " commit_id = excluded.commit_id, workflow = excluded.workflow, issued_at = now()",
            run.checkKey(),
            run.repo(),
            run.commit(),
            run.workflow())
        > 0;
  }

  /**
   * Whether a run of {@code checkKey} issued within {@code age} was really handed on: its row is
   * still queued, or the check-writer heard from its run. A reconciler killed between issuing a run
   * and queueing it leaves it issued with neither, and that run was never handed on.
   */
  public boolean handedOnWithin(String checkKey, Duration age) throws SQLException {
    try (Connection c = db.getConnection()) {
      boolean issued =
          !Jdbc.query(
                  c,
                  "select 1 from run_issued where check_key = ?"
                      + " and issued_at >= now() - ? * interval '1 second'",
                  r -> r.getInt(1),
                  checkKey,
                  age.toSeconds())
              .isEmpty();
      if (!issued) {
        return false;
      }
      boolean queued =
          !Jdbc.query(c, "select 1 from run_queue where check_key = ?", r -> r.getInt(1), checkKey)
              .isEmpty();
      return queued || PgCheckLedger.heardOf(c, checkKey);
    }
  }

  /** Says {@code worker} is alive for every run it holds; returns how many it holds. */
  public int heartbeat(String worker) throws SQLException {
    return update("update run_queue set heartbeat_at = now() where worker = ?", worker);
  }

  /** Marks a run as running; false when it was not waiting. */
  public boolean start(String checkKey) throws SQLException {
    return update(
            "update run_queue set state = 'RUNNING', started_at = now()"
                + " where check_key = ? and state = 'WAITING'",
            checkKey)
        == 1;
  }

  /** Takes an ended or cancelled run off the queue, if {@code worker} still holds it. */
  public boolean remove(String checkKey, String worker) throws SQLException {
    return update("delete from run_queue where check_key = ? and worker = ?", checkKey, worker) > 0;
  }

  /**
   * Marks the runs of {@code run}'s workflow on its subject that other live workers hold, filed
   * before it at another commit, to be cancelled as superseded: each worker cancels what is marked
   * at its next heartbeat ({@link #superseded}). A run handed back is left to the recovery, which
   * ends it once it sees its ref moved on.
   *
   * @return how many were marked
   */
  public int supersedeElsewhere(Run run, String worker) throws SQLException {
    return update(
        "update run_queue o set cancel_reason = 'SUPERSEDED' where o.repo = ? and o.subject = ?"
            + " and o.workflow = ? and o.worker <> ? and o.worker not like '%/handed-back'"
            + " and o.cancel_reason is null and (o.commit_id <> ?"
            + " or coalesce(o.base_commit, '') <> coalesce(cast(? as text), ''))"
            + " and o.created_seq < (select m.created_seq from run_queue m where m.check_key = ?)",
        run.repo(),
        run.subject(),
        run.workflow(),
        worker,
        run.commit(),
        run.baseCommit(),
        run.checkKey());
  }

  /**
   * Asks for the queued run {@code checkKey} to be cancelled for {@code reason} (a {@code
   * CancelReason}'s name): the scheduler holding it cancels it at its next poll ({@link
   * #cancelsHeldBy}), and one that takes it later cancels it as it takes it.
   *
   * @return false when no such run is queued, or one was asked for already
   */
  public boolean askCancel(String checkKey, String reason) throws SQLException {
    return update(
            "update run_queue set cancel_reason = ? where check_key = ? and cancel_reason is null",
            reason,
            checkKey)
        == 1;
  }

  /** The runs {@code worker} holds that were asked to be cancelled: check key to reason. */
  public Map<String, String> cancelsHeldBy(String worker) throws SQLException {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (String[] row :
        query(
            "select check_key, cancel_reason from run_queue where worker = ?"
                + " and cancel_reason is not null",
            r -> new String[] {r.getString(1), r.getString(2)},
            worker)) {
      out.put(row[0], row[1]);
    }
    return out;
  }

  /** The check keys of {@code worker}'s runs that another worker marked as superseded. */
  public List<String> superseded(String worker) throws SQLException {
    return query(
        "select check_key from run_queue where worker = ? and cancel_reason is not null",
        r -> r.getString(1),
        worker);
  }

  /** Lets go of {@code worker}'s runs at once, as it stops, so another worker takes them now. */
  public int release(String worker) throws SQLException {
    return update(
        "update run_queue set heartbeat_at = timestamptz '1970-01-01 00:00:00+00' where worker = ?",
        worker);
  }

  /**
   * Lets go of one of {@code worker}'s runs at once, for another worker to file again: marked as
   * handed back, so this worker's heartbeat no longer stamps it, and stale.
   */
  public boolean releaseOne(String checkKey, String worker) throws SQLException {
    return update(
            "update run_queue set worker = ?, heartbeat_at = timestamptz '1970-01-01 00:00:00+00'"
                + " where check_key = ? and worker = ?",
            worker + "/handed-back",
            checkKey,
            worker)
        > 0;
  }

  /** The runs whose worker has not said it is alive within {@code staleAfter}, oldest first. */
  public List<Row> stale(Duration staleAfter) throws SQLException {
    return query(
        "select "
            + COLUMNS
            + " from run_queue"
            + " where heartbeat_at < now() - ? * interval '1 millisecond' order by created_seq",
        PgRunQueue::row,
        staleAfter.toMillis());
  }

  /**
   * Takes a stale run off the queue, if it is still stale: of two workers recovering it, one gets
   * true.
   */
  public boolean takeStale(String checkKey, Duration staleAfter) throws SQLException {
    return update(
            "delete from run_queue where check_key = ?"
                + " and heartbeat_at < now() - ? * interval '1 millisecond'",
            checkKey,
            staleAfter.toMillis())
        == 1;
  }

  /** Whether a run of check {@code checkKey} is in the queue, waiting or running. */
  public boolean queued(String checkKey) throws SQLException {
    return !query("select 1 from run_queue where check_key = ?", r -> Boolean.TRUE, checkKey)
        .isEmpty();
  }

  /** The waiting runs of a class, oldest filed first. */
  public List<Row> waiting(RunClass runClass) throws SQLException {
    return query(
        "select "
            + COLUMNS
            + " from run_queue where state = 'WAITING' and run_class = ?"
            + " order by created_seq",
        PgRunQueue::row,
        runClass.name());
  }

  /** How many runs wait, by class (every class present, zero when none waits). */
  public Map<RunClass, Long> waitingByClass() throws SQLException {
    Map<RunClass, Long> out = new EnumMap<>(RunClass.class);
    for (RunClass c : RunClass.values()) {
      out.put(c, 0L);
    }
    for (Object[] row :
        query(
            "select run_class, count(*) from run_queue where state = 'WAITING' group by run_class",
            r -> new Object[] {r.getString(1), r.getLong(2)})) {
      out.put(RunClass.valueOf((String) row[0]), (Long) row[1]);
    }
    return out;
  }

  /**
   * How many runs wait, by class and by what the queue alone can tell of why: {@link
   * WaitReason#TURN} when a run of the same workflow on the same subject is running, {@link
   * WaitReason#JOB} otherwise (the scheduler's caps and allowances are not in the queue). Every
   * pair of those is present, at zero when none wait so.
   */
  public Map<RunClass, Map<WaitReason, Long>> waitingByClassAndReason() throws SQLException {
    Map<RunClass, Map<WaitReason, Long>> out = new EnumMap<>(RunClass.class);
    for (RunClass c : RunClass.values()) {
      Map<WaitReason, Long> byReason = new EnumMap<>(WaitReason.class);
      byReason.put(WaitReason.JOB, 0L);
      byReason.put(WaitReason.TURN, 0L);
      out.put(c, byReason);
    }
    for (Object[] row :
        query(
            "select w.run_class, exists (select 1 from run_queue r where r.state = 'RUNNING'"
                + " and r.repo = w.repo and r.subject is not distinct from w.subject"
                + " and r.workflow = w.workflow), count(*) from run_queue w"
                + " where w.state = 'WAITING' group by 1, 2",
            r -> new Object[] {r.getString(1), r.getBoolean(2), r.getLong(3)})) {
      WaitReason reason = (Boolean) row[1] ? WaitReason.TURN : WaitReason.JOB;
      out.get(RunClass.valueOf((String) row[0])).merge(reason, (Long) row[2], Long::sum);
    }
    return out;
  }

  /** The runs with an order that {@code me} does not hold, in the order they were filed. */
  public List<Row> ordersNotHeldBy(String me, int limit) throws SQLException {
    return query(
        "select "
            + COLUMNS
            + " from run_queue where run_order is not null"
            + " and worker is distinct from ? order by created_seq limit ?",
        PgRunQueue::row,
        me,
        limit);
  }

  /**
   * Takes a run for {@code me} if it is still held by {@code was} (null for none): a row another
   * leader took meanwhile stays theirs.
   */
  public boolean take(String checkKey, String me, String was) throws SQLException {
    return update(
            "update run_queue set worker = ?, heartbeat_at = now() where check_key = ?"
                + " and worker is not distinct from ?",
            me,
            checkKey,
            was)
        == 1;
  }

  // What an admission reads and writes, on the connection holding its lock (PgAdmissionGate).

  Connection connection() throws SQLException {
    return db.getConnection();
  }

  /** The runs other workers hold as running, by owner. */
  static Map<String, Integer> runningElsewhere(Connection c, String worker) throws SQLException {
    Map<String, Integer> out = new HashMap<>();
    for (Object[] row :
        Jdbc.query(
            c,
            "select owner_did, count(*) from run_queue where state = 'RUNNING'"
                + " and worker is distinct from ? group by owner_did",
            r -> new Object[] {r.getString(1), r.getInt(2)},
            worker)) {
      out.put((String) row[0], (Integer) row[1]);
    }
    return out;
  }

  /**
   * The workflows on a subject where a run another worker holds (waiting, running, or handed back
   * and not yet filed again) was filed before one waiting on {@code worker}.
   */
  static Set<WorkKey> turnsElsewhere(Connection c, String worker) throws SQLException {
    return new HashSet<>(
        Jdbc.query(
            c,
            "select distinct o.repo, o.subject, o.workflow from run_queue o join run_queue m"
                + " on m.repo = o.repo and m.subject = o.subject and m.workflow = o.workflow"
                + " where m.worker = ? and m.state = 'WAITING'"
                + " and o.worker is distinct from ? and o.created_seq < m.created_seq",
            r -> new WorkKey(r.getString(1), r.getString(2), r.getString(3)),
            worker,
            worker));
  }

  /** Marks {@code worker}'s waiting runs of {@code checkKeys} running. */
  static void markRunning(Connection c, String[] checkKeys, String worker) throws SQLException {
    Jdbc.update(
        c,
        "update run_queue set state = 'RUNNING', started_at = now()"
            + " where check_key = any(?) and worker = ? and state = 'WAITING'",
        checkKeys,
        worker);
  }

  // What the check-writer's ledger reads, on the connection holding a check's lock (PgCheckLedger).

  /** The run the queue issued under {@code checkKey}, if any. */
  static Optional<IssuedRun> issued(Connection c, String checkKey) throws SQLException {
    List<IssuedRun> runs =
        Jdbc.query(
            c,
            "select repo, commit_id, workflow from run_issued where check_key = ?",
            r -> new IssuedRun(r.getString(1), r.getString(2), r.getString(3)),
            checkKey);
    return runs.stream().findFirst();
  }

  /** Forgets runs issued longer than {@code age} ago and no longer queued; returns how many. */
  int forgetIssued(Duration age) throws SQLException {
    return update(
        "delete from run_issued where issued_at < now() - ? * interval '1 second'"
            + " and check_key not in (select check_key from run_queue)",
        age.toSeconds());
  }

  private static Row row(ResultSet r) throws SQLException {
    return new Row(
        new Run(
            r.getString(1),
            r.getString(2),
            r.getString(3),
            RunClass.valueOf(r.getString(4)),
            r.getString(5),
            r.getString(6),
            r.getString(7),
            r.getString(8),
            r.getString(9)),
        r.getString(10),
        r.getString(11));
  }

  private int update(String sql, Object... args) throws SQLException {
    try (Connection c = db.getConnection()) {
      return Jdbc.update(c, sql, args);
    }
  }

  private <T> List<T> query(String sql, Jdbc.Reader<T> read, Object... args) throws SQLException {
    try (Connection c = db.getConnection()) {
      return Jdbc.query(c, sql, read, args);
    }
  }
}
