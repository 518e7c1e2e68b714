package dev.knotless.run.reconciler.adapter.db;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
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
   * Files a run as waiting, after every run filed before it. Filing a check key already queued
   * leaves the queue as it was.
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
            QueuedRun.<QueuedRun>find("checkKey", checkKey)
                .firstResult()
                .chain(
                    existing -> {
                      if (existing != null) {
                        return Uni.createFrom().item(existing);
                      }
                      return Panache.getSession()
                          .chain(
                              s ->
                                  s.createNativeQuery(
                                          "select nextval('run_queue_order')", Long.class)
                                      .getSingleResult())
                          .chain(
                              order -> {
                                QueuedRun run = new QueuedRun();
                                run.checkKey = checkKey;
                                run.repo = repo;
                                run.ownerDid = ownerDid;
                                run.runClass = runClass.name();
                                run.state = "WAITING";
                                run.workflow = workflow;
                                run.commitId = commit;
                                run.createdSeq = order;
                                run.createdAt = OffsetDateTime.now(ZoneOffset.UTC);
                                return run.<QueuedRun>persist();
                              });
                    }));
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

  /** Takes an ended or cancelled run off the queue. */
  public Uni<Boolean> remove(String checkKey) {
    return Panache.withTransaction(() -> QueuedRun.delete("checkKey", checkKey).map(n -> n > 0));
  }
}
