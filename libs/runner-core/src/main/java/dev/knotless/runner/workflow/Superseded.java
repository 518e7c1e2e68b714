package dev.knotless.runner.workflow;

/**
 * What a newer commit's run of the same workflow on the same ref or pull does to an older run:
 * {@link #CANCEL} it (the default), or let it {@link #FINISH} (for deploys, which go out in order).
 */
public enum Superseded {
  /** The older run, waiting or running, is cancelled. */
  CANCEL,
  /** The older run is kept; the newer waits for the workflow's turn. */
  FINISH;

  /** The spelling in a workflow file. */
  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
