package dev.knotless.runner.reconcile;

/**
 * Whether a watched label still names the repository the runner was watching. The runner knows a
 * repository by its key; a label that now finds another key means either the repository was deleted
 * (no repository of the owner's has the old key), or the label was taken by another one.
 */
public sealed interface KeyCheck {

  /** The label still names the same repository: go on. */
  record Same() implements KeyCheck {}

  /**
   * The repository was deleted: stop watching it, and clear its checks, secrets' grants, caches and
   * state.
   */
  record Deleted(String oldKey) implements KeyCheck {}

  /** The label names another repository while the old one still exists: the pass fails. */
  record Changed(String message) implements KeyCheck {}

  /**
   * Compares the key the runner watches with the key the label finds now.
   *
   * @param label the repository as given on the command line, for the message
   * @param watchedKey the key the runner has been watching
   * @param currentKey the key the label's record has now, or null if there is no record
   * @param oldKeyStillThere whether a repository record with {@code watchedKey} still exists in the
   *     owner's account (a rename keeps it)
   */
  static KeyCheck compare(
      String label, String watchedKey, String currentKey, boolean oldKeyStillThere) {
    if (watchedKey.equals(currentKey)) {
      return new Same();
    }
    if (!oldKeyStillThere) {
      return new Deleted(watchedKey);
    }
    if (currentKey == null) {
      return new Changed(
          label
              + " no longer names a repository; repository "
              + watchedKey
              + " that the runner watched still exists under another name");
    }
    return new Changed(
        label
            + " now names repository "
            + currentKey
            + ", not "
            + watchedKey
            + " that the runner was watching");
  }
}
