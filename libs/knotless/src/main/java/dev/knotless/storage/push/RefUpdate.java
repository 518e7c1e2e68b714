package dev.knotless.storage.push;

/**
 * One ref a push asks to move: to {@code target}, or deleted when {@code target} is null. {@code
 * force} skips the fetch-first and fast-forward checks, not the compare-and-swap. Immutable.
 */
public record RefUpdate(String ref, String target, boolean force) {
  public RefUpdate {
    RefNames.validate(ref);
  }

  public boolean delete() {
    return target == null;
  }
}
