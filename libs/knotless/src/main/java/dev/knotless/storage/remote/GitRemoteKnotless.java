package dev.knotless.storage.remote;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.ProcessExit;
import dev.knotless.storage.Trace;
import dev.knotless.storage.cli.CompactLauncher;
import dev.knotless.storage.git.Git;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code git-remote-knotless <remote> <url>}: the main class git runs for {@code knotless://} URLs.
 * Exits 1 with a {@code fatal:} line on stderr when anything fails.
 */
public final class GitRemoteKnotless {
  private GitRemoteKnotless() {}

  public static void main(String[] args) {
    // A few requests, then exit: the client that costs least to start.
    dev.knotless.atproto.ServiceAddresses.shortLivedProcess();
    main(args, KnotlessRepos::fromEnvironment);
  }

  /**
   * As {@link #main}, with the storage entry point made from the environment by {@code repos}: a
   * test's, resolving identities through servers it started. Exits the JVM as {@link #main} does.
   */
  public static void main(
      String[] args, java.util.function.Function<Map<String, String>, KnotlessRepos> repos) {
    Trace.mark("main");
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    if (args.length < 1) {
      System.err.println("usage: git-remote-knotless <remote> [<url>] (git runs this for you)");
      System.exit(2);
    }
    String remote = args[0];
    String url = args.length > 1 ? args[1] : args[0];
    Map<String, String> env = System.getenv();
    String gitDir = env.getOrDefault("GIT_DIR", ".git");
    try {
      long t = Trace.start();
      KnotlessRepos knotless = repos.apply(env);
      Trace.step("set up", t);
      RemoteHelper helper =
          new RemoteHelper(
              knotless,
              remote,
              url,
              Git.at(Path.of(gitDir).toAbsolutePath()),
              out,
              System.err,
              result -> CompactLauncher.afterPush(knotless, url, result));
      helper.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
      out.flush();
      ProcessExit.now(0);
    } catch (Exception e) {
      // The one place every failure ends: git shows this line to the user.
      out.flush();
      System.err.println("fatal: knotless: " + e.getMessage());
      ProcessExit.now(1);
    }
  }
}
