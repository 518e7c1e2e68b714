package dev.knotless.runner.reconcile;

/** How well the runner knows a repository at the start of a pass. */
public enum Watch {
  /** It has state for it: refs that moved, are new, or were dropped run. */
  KNOWN,
  /**
   * First time watched (or its state was lost): a baseline that runs nothing and records where
   * everything is.
   */
  FIRST,
  /**
   * First time watched, found naming the runner ({@code --discover}): a baseline, except the
   * default branch's tip, which runs once.
   */
  FIRST_DISCOVERED
}
