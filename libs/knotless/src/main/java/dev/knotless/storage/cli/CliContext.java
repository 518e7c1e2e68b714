package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;
import java.io.InputStream;
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
  private final InputStream in;
  private KnotlessRepos repos;

  public CliContext(
      Map<String, String> env, PrintStream out, PrintStream err, Supplier<KnotlessRepos> factory) {
    this(env, System.in, out, err, factory);
  }

  /**
   * As above, reading what a command takes on standard input (a secret's value) from {@code in}.
   */
  public CliContext(
      Map<String, String> env,
      InputStream in,
      PrintStream out,
      PrintStream err,
      Supplier<KnotlessRepos> factory) {
    this.env = env;
    this.in = in;
    this.out = out;
    this.err = err;
    this.factory = factory;
  }

  /** Standard input. */
  public InputStream in() {
    return in;
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
