package dev.knotless.runner.schedule;

/** What a run checks, which decides how a newer run of the same workflow treats it. */
public enum SubjectKind {
  /** A push, or a run asked for by name, at a ref. */
  REF,
  /**
   * A pull, at a head and base. A kept ({@code superseded: finish}) run is still cancelled when the
   * pull moves, since its result no longer means anything.
   */
  PULL,
  /**
   * A merge-queue batch. Batches on one branch are never superseded here: the batch ahead runs
   * beside the one still checking, and the queue cancels a dropped batch itself.
   */
  BATCH
}
