package dev.knotless.runner.schedule;

/**
 * Why a run is still waiting: the first thing it needs that is not free. Logged and exported as a
 * metric tag, so the names are stable.
 */
public enum WaitReason {
  /** Every job is taken, or claimed by a run ranked before it. */
  JOB,
  /** Its workflow's turn on the ref or pull is held by another run (superseded: finish). */
  TURN,
  /** Its owner's runs hold {@code --owner-jobs} jobs already. */
  OWNER_CAP,
  /** Its owner is past the allowance and has a run of the same kind (public/private) going. */
  ALLOWANCE,
  /** The classes other than MAIN hold {@code --pull-jobs} jobs already. */
  CLASS_CAP;

  /** The lowercase name, for log lines and metric tags. */
  public String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
