package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.cli.KnotlessCli;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The owner's {@code knotless} tool, run in-process as an owner would run it against the shape. */
final class OwnerCli {
  private OwnerCli() {}

  /**
   * Runs {@code knotless <args>} as {@code owner}, with {@code stdin} on its input and {@code
   * extraEnv} over the PDS's environment; fails unless it exits 0, and returns what it printed.
   */
  static String run(
      LocalDistributed shape,
      Account owner,
      Map<String, String> extraEnv,
      String stdin,
      String... args) {
    return run(shape, owner, false, extraEnv, stdin, args);
  }

  /**
   * As {@link #run(LocalDistributed, Account, Map, String, String...)}, logged in with an OAuth
   * session saved by a login (as {@code knotless login} leaves one) when {@code oauth}, as a
   * private repository's owner must be, else with the password.
   */
  static String run(
      LocalDistributed shape,
      Account owner,
      boolean oauth,
      Map<String, String> extraEnv,
      String stdin,
      String... args) {
    Map<String, String> env = new HashMap<>(shape.pds().environment());
    env.putAll(extraEnv);
    Path home = shape.dir().resolve("cli-" + owner.handle());
    if (oauth) {
      env.put("KNOTLESS_CONFIG_DIR", home.resolve("config").toString());
      try {
        dev.knotless.testing.infra.HarnessOAuth.saveLogin(
            shape.pds(), owner, home.resolve("config"));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    } else {
      env.put("KNOTLESS_IDENTIFIER", owner.handle());
      env.put("KNOTLESS_PASSWORD", owner.password());
    }
    env.put("KNOTLESS_CACHE_DIR", home.resolve("cache").toString());
    env.put("HOME", home.toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        KnotlessCli.run(
            List.of(args),
            new CliContext(
                env,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    assertEquals(0, code, "knotless " + String.join(" ", args) + ": " + err);
    return out.toString(StandardCharsets.UTF_8);
  }
}
