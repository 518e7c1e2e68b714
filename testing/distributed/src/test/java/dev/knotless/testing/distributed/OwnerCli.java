package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.cli.KnotlessCli;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The owner's tools ({@code knotless ...}) run in this JVM as an account of the shape's PDS. */
final class OwnerCli {
  private OwnerCli() {}

  /**
   * Runs {@code knotless <args>} as {@code owner}, with {@code appview} set when not null, and
   * fails the test if it exits with other than 0; returns what it printed.
   */
  static String knotless(
      LocalDistributed shape, URI appview, Account owner, String stdin, String... args) {
    Map<String, String> env = new HashMap<>(shape.pds().environment());
    if (appview != null) {
      env.put("KNOTLESS_APPVIEW", appview.toString());
    }
    env.put("KNOTLESS_IDENTIFIER", owner.handle());
    env.put("KNOTLESS_PASSWORD", owner.password());
    Path home = shape.dir().resolve("cli-" + owner.handle());
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
