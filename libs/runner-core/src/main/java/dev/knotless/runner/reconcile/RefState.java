package dev.knotless.runner.reconcile;

/**
 * One ref as the owner's PDS says it is now.
 *
 * @param name the full ref name, such as {@code refs/heads/main}
 * @param target the commit it points at
 * @param generation the counter that goes up with every push to the ref
 */
public record RefState(String name, String target, long generation) {
  public RefState {
    if (name == null || !name.startsWith("refs/")) {
      throw new IllegalArgumentException("a ref's name must start with refs/, got: " + name);
    }
    if (target == null || target.isBlank()) {
      throw new IllegalArgumentException("ref " + name + " has no target");
    }
    if (generation < 0) {
      throw new IllegalArgumentException("ref " + name + " has a negative generation");
    }
  }
}
