package dev.knotless.run.reconciler.adapter.db;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;

/** A run filed and waiting for a job, or running: one row of the run queue. */
@Entity
@Table(name = "run_queue")
public class QueuedRun extends PanacheEntityBase {
  @Id
  @SequenceGenerator(name = "run_queue_seq", sequenceName = "run_queue_seq", allocationSize = 50)
  @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "run_queue_seq")
  public Long id;

  @Column(name = "check_key", nullable = false, unique = true)
  public String checkKey;

  @Column(nullable = false)
  public String repo;

  @Column(name = "owner_did", nullable = false)
  public String ownerDid;

  /** MAIN, OTHER, LATER or ASKED. */
  @Column(name = "run_class", nullable = false)
  public String runClass;

  /** WAITING or RUNNING. */
  @Column(nullable = false)
  public String state;

  @Column(nullable = false)
  public String workflow;

  @Column(name = "commit_id", nullable = false)
  public String commitId;

  /** The order runs were filed in, which ranks runs within a class. */
  @Column(name = "created_seq", nullable = false)
  public Long createdSeq;

  @Column(name = "created_at", nullable = false)
  public OffsetDateTime createdAt;

  @Column(name = "started_at")
  public OffsetDateTime startedAt;

  /** The worker holding the run, or null. */
  @Column public String worker;

  /** When its worker last said it is alive. */
  @Column(name = "heartbeat_at")
  public OffsetDateTime heartbeatAt;

  /** The full ref the run checks. */
  @Column public String subject;

  /** The base commit, for a pull or batch. */
  @Column(name = "base_commit")
  public String baseCommit;

  /** The run's order as JSON, for the scheduler; null for a run a reconciler's worker runs. */
  @Column(name = "run_order")
  public String runOrder;
}
