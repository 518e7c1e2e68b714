package dev.knotless.run.events;

/** The Kafka topics the services share, and what their keys are. */
public final class Topics {
  /** Doorbells, keyed by {@code <owner did>/<repo key>}, the value a {@link DoorbellMessage}. */
  public static final String DOORBELLS = "knotless.doorbells";

  /** Run events, keyed by the check's record key, the value a {@link RunEvent} as JSON. */
  public static final String RUN_EVENTS = "knotless.run-events";

  private Topics() {}
}
