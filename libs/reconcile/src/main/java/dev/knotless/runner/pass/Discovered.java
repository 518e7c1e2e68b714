package dev.knotless.runner.pass;

/** Which watched repositories were found naming the runner rather than named to it. */
@FunctionalInterface
public interface Discovered {
  /** True if {@code id} was found with {@code --discover}. */
  boolean test(dev.knotless.runner.doorbell.RepoId id);

  /** None: every repository was named on the command line. */
  Discovered NONE = id -> false;
}
