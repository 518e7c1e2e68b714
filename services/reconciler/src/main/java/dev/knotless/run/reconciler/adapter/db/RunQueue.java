package dev.knotless.run.reconciler.adapter.db;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The run queue in PostgreSQL: runs filed by passes, waiting or running, in filing order. */
@ApplicationScoped
public class RunQueue {
  /** The run classes, in rank order. */
  public enum RunClass {
    MAIN,
    OTHER,
    LATER,
    ASKED
  }

  /**
   * Files a run as waiting, held by {@code worker}, after every run filed before it, unless another
   * worker alive within {@code staleAfter} holds the same check: then the queue stays as it was. A
   * check whose worker is stale is taken over. One statement, so two workers filing the same check
   * at once cannot both win.
   *
   * @return whether {@code worker} now holds the run
   */
  public Uni<Boolean> claim(QueuedRun run, String worker, Duration staleAfter) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    return Panache.withTransaction(
        () ->
            Panache.getSession()
                .chain(
                    s ->
                        s.createNativeQuery(
                                "insert into run_queue (id, check_key, repo, owner_did, run_class,"
                                    + " state, workflow, commit_id, created_seq, created_at,"
                                    + " worker, heartbeat_at, subject, base_commit)"
                                    + " values (nextval('run_queue_seq'), :key, :repo, :owner,"
                                    + " :class, 'WAITING', :workflow, :commit,"
                                    + " nextval('run_queue_order'), :now, :worker, :now, :subject,"
                                    + " :base)"
                                    + " on conflict (check_key) do update set worker ="
                                    + " excluded.worker, heartbeat_at = excluded.heartbeat_at,"
                                    + " state = 'WAITING', started_at = null, cancel_reason = null"
                                    + " where run_queue.heartbeat_at is null"
                                    + " or run_queue.heartbeat_at < :stale"
                                    + " returning check_key",
                                String.class)
                            .setParameter("key", run.checkKey)
                            .setParameter("repo", run.repo)
                            .setParameter("owner", run.ownerDid)
                            .setParameter("class", run.runClass)
                            .setParameter("workflow", run.workflow)
                            .setParameter("commit", run.commitId)
                            .setParameter("now", now)
                            .setParameter("worker", worker)
                            .setParameter("subject", run.subject)
                            .setParameter("base", run.baseCommit)
                            .setParameter("stale", now.minus(staleAfter))
                            .getResultList())
                .map(rows -> !rows.isEmpty()));
  }

  /**
   * Files a run as waiting for the scheduler, held by no one, with its order; a check key queued
   * already (a second pass, a redelivered doorbell) leaves the queue as it was.
   *
   * @return whether the run was filed now
   */
  public Uni<Boolean> order(QueuedRun run) {
    return Panache.withTransaction(
        () ->
            Panache.getSession()
                .chain(
                    s ->
                        s.createNativeQuery(
                                "insert into run_queue (id, check_key, repo, owner_did, run_class,"
                                    + " state, workflow, commit_id, created_seq, created_at,"
                                    + " subject, base_commit, run_order)"
                                    + " values (nextval('run_queue_seq'), :key, :repo, :owner,"
                                    + " :class, 'WAITING', :workflow, :commit,"
                                    + " nextval('run_queue_order'), :now, :subject, :base, :order)"
                                    + " on conflict (check_key) do nothing")
                            .setParameter("key", run.checkKey)
                            .setParameter("repo", run.repo)
                            .setParameter("owner", run.ownerDid)
                            .setParameter("class", run.runClass)
                            .setParameter("workflow", run.workflow)
                            .setParameter("commit", run.commitId)
                            .setParameter("now", OffsetDateTime.now(ZoneOffset.UTC))
                            .setParameter("subject", run.subject)
                            .setParameter("base", run.baseCommit)
                            .setParameter("order", run.runOrder)
                            .executeUpdate())
                .map(n -> n > 0));
  }

  /**
   * Issues a run that takes no queue row (one ended as it is filed), so the check-writer files its
   * events; a run that takes a row is issued by the row's insert (migration V5's trigger).
   */
  public Uni<Boolean> issue(QueuedRun run) {
    return Panache.withTransaction(
        () ->
            Panache.getSession()
                .chain(
                    s ->
                        s.createNativeQuery(
                                "insert into run_issued (check_key, repo, commit_id, workflow)"
                                    + " values (:key, :repo, :commit, :workflow)"
                                    + " on conflict (check_key) do update set repo = excluded.repo,"
                                    + " commit_id = excluded.commit_id,"
                                    + " workflow = excluded.workflow, issued_at = now()")
                            .setParameter("key", run.checkKey)
                            .setParameter("repo", run.repo)
                            .setParameter("commit", run.commitId)
                            .setParameter("workflow", run.workflow)
                            .executeUpdate())
                .map(n -> n > 0));
  }

  /**
   * Marks the runs of {@code run}'s workflow on its subject that other live workers hold, filed
   * before it at another commit, to be cancelled as superseded: each worker cancels what is marked
   * at its next heartbeat ({@link #superseded}). A run handed back is left to the recovery, which
   * ends it once it sees its ref moved on. Returns how many were marked.
   */
  public Uni<Integer> supersedeElsewhere(QueuedRun run, String worker) {
    return Panache.withTransaction(
        () ->
            Panache.getSession()
                .chain(
                    s ->
                        s.createNativeQuery(
                                "update run_queue o set cancel_reason = 'SUPERSEDED'"
                                    + " where o.repo = :repo and o.subject = :subject"
                                    + " and o.workflow = :workflow and o.worker <> :worker"
                                    + " and o.worker not like '%/handed-back'"
                                    + " and o.cancel_reason is null"
                                    + " and (o.commit_id <> :commit"
                                    + " or coalesce(o.base_commit, '') <> coalesce(cast(:base as text), ''))"
                                    + " and o.created_seq < (select m.created_seq from run_queue m"
                                    + " where m.check_key = :key)")
                            .setParameter("repo", run.repo)
                            .setParameter("subject", run.subject)
                            .setParameter("workflow", run.workflow)
                            .setParameter("worker", worker)
                            .setParameter("commit", run.commitId)
                            .setParameter("base", run.baseCommit)
                            .setParameter("key", run.checkKey)
                            .executeUpdate()));
  }

  /** The check keys of {@code worker}'s runs that another worker marked as superseded. */
  public Uni<List<String>> superseded(String worker) {
    return Panache.withSession(
        () ->
            Panache.getSession()
                .chain(
                    s ->
                        s.createNativeQuery(
                                "select check_key from run_queue where worker = :worker"
                                    + " and cancel_reason is not null",
                                String.class)
                            .setParameter("worker", worker)
                            .getResultList()));
  }

  /** Says {@code worker} is alive for every run it holds; returns how many it holds. */
  public Uni<Integer> heartbeat(String worker) {
    return Panache.withTransaction(
        () ->
            QueuedRun.update(
                "heartbeatAt = ?1 where worker = ?2", OffsetDateTime.now(ZoneOffset.UTC), worker));
  }

  /** Lets go of {@code worker}'s runs at once, as it stops, so another worker takes them now. */
  public Uni<Integer> release(String worker) {
    return Panache.withTransaction(
        () ->
            QueuedRun.update(
                "heartbeatAt = ?1 where worker = ?2",
                OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                worker));
  }

  /**
   * Lets go of one of {@code worker}'s runs at once, for another worker to file again: marked as
   * handed back, so this worker's heartbeat no longer stamps it, and stale.
   */
  public Uni<Boolean> releaseOne(String checkKey, String worker) {
    return Panache.withTransaction(
        () ->
            QueuedRun.update(
                    "worker = ?1, heartbeatAt = ?2 where checkKey = ?3 and worker = ?4",
                    worker + "/handed-back",
                    OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                    checkKey,
                    worker)
                .map(n -> n > 0));
  }

  /** The runs whose worker has not said it is alive within {@code staleAfter}, oldest first. */
  public Uni<List<QueuedRun>> stale(Duration staleAfter) {
    OffsetDateTime before = OffsetDateTime.now(ZoneOffset.UTC).minus(staleAfter);
    return Panache.withSession(
        () -> QueuedRun.<QueuedRun>find("heartbeatAt < ?1 order by createdSeq", before).list());
  }

  /**
   * Takes a stale run off the queue, if it is still stale: of two workers recovering it, one gets
   * true.
   */
  public Uni<Boolean> takeStale(String checkKey, Duration staleAfter) {
    OffsetDateTime before = OffsetDateTime.now(ZoneOffset.UTC).minus(staleAfter);
    return Panache.withTransaction(
        () ->
            QueuedRun.delete("checkKey = ?1 and heartbeatAt < ?2", checkKey, before)
                .map(n -> n == 1));
  }

  /**
   * Files a run as waiting with no worker, so no worker runs or recovers it: for tests of what the
   * queue shows. Filing a check key already queued leaves the queue as it was.
   */
  public Uni<QueuedRun> enqueue(
      String checkKey,
      String repo,
      String ownerDid,
      RunClass runClass,
      String workflow,
      String commit) {
    return Panache.withTransaction(
            () ->
                Panache.getSession()
                    .chain(
                        s ->
                            s.createNativeQuery(
                                    "insert into run_queue (id, check_key, repo, owner_did,"
                                        + " run_class, state, workflow, commit_id, created_seq,"
                                        + " created_at) values (nextval('run_queue_seq'), :key,"
                                        + " :repo, :owner, :class, 'WAITING', :workflow, :commit,"
                                        + " nextval('run_queue_order'), :now)"
                                        + " on conflict (check_key) do nothing")
                                .setParameter("key", checkKey)
                                .setParameter("repo", repo)
                                .setParameter("owner", ownerDid)
                                .setParameter("class", runClass.name())
                                .setParameter("workflow", workflow)
                                .setParameter("commit", commit)
                                .setParameter("now", OffsetDateTime.now(ZoneOffset.UTC))
                                .executeUpdate()))
        .chain(
            n ->
                Panache.withSession(
                    () -> QueuedRun.<QueuedRun>find("checkKey", checkKey).firstResult()));
  }

  /** The waiting runs of a class, oldest filed first. */
  public Uni<List<QueuedRun>> waiting(RunClass runClass) {
    return Panache.withSession(
        () ->
            QueuedRun.<QueuedRun>find(
                    "state = 'WAITING' and runClass = ?1 order by createdSeq", runClass.name())
                .list());
  }

  /** How many runs wait, by class (every class present, zero when none waits). */
  public Uni<Map<RunClass, Long>> waitingByClass() {
    return Panache.withSession(
        () ->
            Panache.getSession()
                .chain(
                    s ->
                        s.createSelectionQuery(
                                "select runClass, count(*) from QueuedRun where state = 'WAITING'"
                                    + " group by runClass",
                                Object[].class)
                            .getResultList())
                .map(
                    rows -> {
                      Map<RunClass, Long> out = new EnumMap<>(RunClass.class);
                      for (RunClass c : RunClass.values()) {
                        out.put(c, 0L);
                      }
                      for (Object[] row : rows) {
                        out.put(RunClass.valueOf((String) row[0]), (Long) row[1]);
                      }
                      return out;
                    }));
  }

  /** Marks a run as running; false when it was not waiting. */
  public Uni<Boolean> start(String checkKey) {
    return Panache.withTransaction(
        () ->
            QueuedRun.update(
                    "state = 'RUNNING', startedAt = ?1 where checkKey = ?2 and state = 'WAITING'",
                    OffsetDateTime.now(ZoneOffset.UTC),
                    checkKey)
                .map(n -> n == 1));
  }

  /** Takes an ended or cancelled run off the queue, if {@code worker} still holds it. */
  public Uni<Boolean> remove(String checkKey, String worker) {
    return Panache.withTransaction(
        () -> QueuedRun.delete("checkKey = ?1 and worker = ?2", checkKey, worker).map(n -> n > 0));
  }
}
