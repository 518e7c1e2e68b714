package dev.knotless.runner.doorbell;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/** A sink that remembers every ring, then hands it on to the real doors. Thread-safe. */
final class RecordingSink implements DoorbellSink {
  record Ring(RepoId repo, Doorbell reason) {}

  private final DoorbellSink next;
  private final List<RepoId> everyDoor;
  private final List<Ring> rings = new CopyOnWriteArrayList<>();

  /**
   * @param next where rings go on to
   * @param everyDoor the doors {@link #ringAll} stands for in the record
   */
  RecordingSink(DoorbellSink next, List<RepoId> everyDoor) {
    this.next = next;
    this.everyDoor = List.copyOf(everyDoor);
  }

  @Override
  public void ring(RepoId repo, Doorbell reason) {
    rings.add(new Ring(repo, reason));
    next.ring(repo, reason);
  }

  @Override
  public void ringAll(Doorbell reason) {
    everyDoor.forEach(repo -> rings.add(new Ring(repo, reason)));
    next.ringAll(reason);
  }

  List<Ring> rings() {
    return List.copyOf(rings);
  }

  /** The rings so far whose reason is a frame. */
  List<Ring> frameRings() {
    List<Ring> frames = new ArrayList<>();
    for (Ring ring : rings) {
      if (ring.reason() instanceof Doorbell.Frame) {
        frames.add(ring);
      }
    }
    return frames;
  }

  /** How many times this door was rung for this reason. */
  long count(RepoId repo, Doorbell reason) {
    return rings.stream().filter(r -> r.repo().equals(repo) && r.reason().equals(reason)).count();
  }

  /** Polls {@code condition} until it holds, failing with {@code what} after {@code limit}. */
  static void await(String what, Duration limit, BooleanSupplier condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + limit.toMillis() + " ms waiting for " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }
}
