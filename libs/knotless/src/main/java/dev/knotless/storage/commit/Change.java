package dev.knotless.storage.commit;

/**
 * One change of a commit without a checkout, defined by path so it applies to any tip. A closed
 * set; immutable values (the content array is not copied; treat it as read-only).
 */
public sealed interface Change {
  String path();

  /** Writes {@code content} at {@code path}, mode 100755 when {@code executable}, else 100644. */
  record Put(String path, byte[] content, boolean executable) implements Change {
    public Put {
      RepoPaths.validate(path);
    }

    public String mode() {
      return executable ? "100755" : "100644";
    }
  }

  /** Removes {@code path} (a no-op when the parent does not hold it). */
  record Delete(String path) implements Change {
    public Delete {
      RepoPaths.validate(path);
    }
  }
}
