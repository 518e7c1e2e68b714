package dev.knotless.run.reconciler;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts the reference PDS and the harness appview with a runner account and an owner whose first
 * push made repository {@code app} naming the runner, and has the reconciler discover what names it
 * (sweeping every two seconds) instead of listing anything.
 */
public final class FoundRepoResource implements QuarkusTestResourceLifecycleManager {
  /** A workflow that says which repository it runs for, on every push to main. */
  static final String SAYS_WHERE =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: hello
          run: echo "hello from $KNOTLESS_RUN_REPO"
      """;

  private static volatile PdsInstance pds;
  private static volatile HarnessAppview appview;
  private static volatile Account runner;
  private static volatile OwnerRepo owner;
  private static volatile String firstPush;
  private static volatile Path dir;

  static Account runner() {
    return runner;
  }

  /** The owner's repository {@code app}, as first pushed. */
  static OwnerRepo owner() {
    return owner;
  }

  /** The commit of the push that made {@code app}. */
  static String firstPush() {
    return firstPush;
  }

  /**
   * The owner at work on repository {@code name}, in working tree {@code tree} (shared by name).
   */
  static OwnerRepo ownerAt(String name, String tree) throws IOException {
    return new OwnerRepo(owner.account, pds.pdsUrl(), name, dir.resolve(tree));
  }

  /**
   * Runs one of the owner's {@code knotless} commands, as {@code knotless} does from a terminal.
   */
  static void asOwner(Command command) throws IOException {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", owner.account.handle());
    env.put("KNOTLESS_PASSWORD", owner.account.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cli-cache").toString());
    env.put("HOME", dir.toString());
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        command.run(
            new CliContext(
                env,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    if (code != 0) {
      throw new IOException("the owner's command failed: " + err.toString(StandardCharsets.UTF_8));
    }
  }

  /** One of the storage library's commands. */
  @FunctionalInterface
  interface Command {
    int run(CliContext ctx) throws IOException;
  }

  @Override
  public Map<String, String> start() {
    pds = PdsInstance.start(PdsOptions.defaults());
    runner = pds.createAccount("runner");
    try {
      appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
      dir = Files.createTempDirectory("reconciler-found-it");
      owner =
          new OwnerRepo(pds.createAccount("owner"), pds.pdsUrl(), "app", dir.resolve("owner"))
              .namingRunners(() -> List.of(runner.did()));
      owner.commit(Map.of(".knotless/workflows/w.yml", SAYS_WHERE));
      firstPush = owner.push("main");
      Map<String, String> config = new HashMap<>(OwnerPdsResource.runnerSettings(pds, runner, dir));
      config.put("knotless.reconciler.discover", "true");
      config.put("knotless.reconciler.appview", appview.url().toString());
      config.put("knotless.reconciler.sweep", "2s");
      return config;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void stop() {
    HarnessAppview a = appview;
    appview = null;
    if (a != null) {
      a.close();
    }
    PdsInstance p = pds;
    pds = null;
    if (p != null) {
      p.close();
    }
  }
}
