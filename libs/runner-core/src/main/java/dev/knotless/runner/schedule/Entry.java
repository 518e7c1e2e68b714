package dev.knotless.runner.schedule;

import java.time.Instant;
import java.util.Comparator;

/** The scheduler's mutable record of one run. Not thread-safe; owned by one {@link Scheduler}. */
final class Entry {

  /** Rank within a class: owner turn first, then the order runs were submitted. */
  static final Comparator<Entry> RANK =
      Comparator.comparingLong((Entry e) -> e.round).thenComparingLong(e -> e.seq);

  enum State {
    WAITING,
    RUNNING,
    /** Running, and told to cancel: it holds its job until it has ended. */
    CANCELLING,
    /** Ended, still holding its turn until its check is filed as ended. */
    ENDED
  }

  final RunRequest request;
  final long seq;
  final Instant submittedAt;
  long round;
  State state = State.WAITING;
  boolean holdsTurn;

  Entry(RunRequest request, long seq, Instant submittedAt) {
    this.request = request;
    this.seq = seq;
    this.submittedAt = submittedAt;
  }

  String owner() {
    return request.ownerDid();
  }

  boolean live() {
    return state == State.WAITING || state == State.RUNNING;
  }

  boolean holdsJob() {
    return state == State.RUNNING || state == State.CANCELLING;
  }
}
