package dev.knotless.run.events;

/** The Kafka topics the services share, and what their keys are. */
public final class Topics {
  /** Doorbells, keyed by {@code <owner did>/<repo key>}, the value a {@link DoorbellMessage}. */
  public static final String DOORBELLS = "knotless.doorbells";

  /** Run events, keyed by the check's record key, the value a {@link RunEvent} as JSON. */
  public static final String RUN_EVENTS = "knotless.run-events";

  /**
   * Run events the check-writer could not read, each with the reason, the original key and the
   * original value, so a bad producer is seen and nothing is lost while the consumer moves on.
   */
  public static final String RUN_EVENTS_DEAD = "knotless.run-events.dead";

  private Topics() {}
}
