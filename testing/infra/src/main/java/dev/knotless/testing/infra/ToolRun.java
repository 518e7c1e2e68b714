package dev.knotless.testing.infra;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The owner tools run in a test's JVM as the command line runs them, with one person's environment,
 * their output kept. The command line itself (tools/knotless-cli) is passed in, since it is built
 * after this module.
 */
public final class ToolRun {
  private ToolRun() {}

  /** What a command did: its exit code and what it printed. */
  public record Ran(int exit, String out, String err) {
    /** Both streams, for a failure's message. */
    public String all() {
      return out + err;
    }
  }

  /**
   * Runs {@code cli} (such as {@code ctx -> KnotlessCli.run(List.of(argv), ctx)}) with {@code env},
   * building the storage entry point from it on first use.
   */
  public static Ran run(Map<String, String> env, ToIntFunction<CliContext> cli) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        cli.applyAsInt(
            new CliContext(
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    return new Ran(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * A person at {@code home}, with their own cache and config, logged in as {@code as} through
   * {@code KNOTLESS_IDENTIFIER} and {@code KNOTLESS_PASSWORD}, or as nobody when it is null. A
   * mutable copy: a test takes the credentials out to have a saved login decide.
   */
  /**
   * As {@link #env}, logged in as {@code as} with an OAuth session saved in the config directory
   * (as {@code knotless login} leaves one) rather than a password: how a private repository's owner
   * uses the tools.
   */
  public static Map<String, String> oauthEnv(PdsInstance pds, Account as, Path home) {
    Map<String, String> env = env(pds, null, home);
    try {
      HarnessOAuth.saveLogin(pds, as, home.resolve("config"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return env;
  }

  public static Map<String, String> env(PdsInstance pds, Account as, Path home) {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_CACHE_DIR", home.resolve("cache").toString());
    env.put("KNOTLESS_CONFIG_DIR", home.resolve("config").toString());
    env.put("HOME", home.toString());
    if (as != null) {
      env.put("KNOTLESS_IDENTIFIER", as.handle());
      env.put("KNOTLESS_PASSWORD", as.password());
    }
    return env;
  }
}
