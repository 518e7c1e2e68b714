package dev.knotless.runner.doorbell;

/**
 * Where event sources send rings. {@link Doors} is the in-process one (the all-in-one runner); the
 * distributed ingester implements it by publishing each ring to the doorbell topic, keyed by repo.
 *
 * <p>Implementations must be thread-safe and should not block for long: sources call them from
 * their network threads.
 */
public interface DoorbellSink {
  /** Rings one repository's door. */
  void ring(RepoId repo, Doorbell reason);

  /** Rings every watched repository's door, as a connection or a sweep does. */
  void ringAll(Doorbell reason);
}
