package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;
import java.io.PrintStream;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a command runs with: the environment, output streams, and the repositories entry point
 * (built on first use, so {@code help} needs no cache). Not thread-safe; one per invocation.
 */
public final class CliContext {
  private final Map<String, String> env;
  private final PrintStream out;
  private final PrintStream err;
  private final Supplier<KnotlessRepos> factory;
  private KnotlessRepos repos;

  public CliContext(
      Map<String, String> env, PrintStream out, PrintStream err, Supplier<KnotlessRepos> factory) {
    this.env = env;
    this.out = out;
    this.err = err;
    this.factory = factory;
  }

  public Map<String, String> env() {
    return env;
  }

  public PrintStream out() {
    return out;
  }

  public PrintStream err() {
    return err;
  }

  public KnotlessRepos repos() {
    if (repos == null) {
      repos = factory.get();
    }
    return repos;
  }
}
