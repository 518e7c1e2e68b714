package dev.knotless.storage.remote;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.ProcessExit;
import dev.knotless.storage.Trace;
import dev.knotless.storage.cli.CompactLauncher;
import dev.knotless.storage.git.Git;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code git-remote-knotless <remote> <url>}: the main class git runs for {@code knotless://} URLs.
 * Exits 1 with a {@code fatal:} line on stderr when anything fails. {@link #run} is one such run,
 * for this process or for a caller of the resident helper ({@link HelperDaemon}).
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
  public static void main(String[] args, Function<Map<String, String>, KnotlessRepos> repos) {
    Trace.mark("main");
    Map<String, String> env = System.getenv();
    int status =
        run(args, env, Path.of("").toAbsolutePath(), System.in, System.out, System.err, repos);
    ProcessExit.now(status);
  }

  /**
   * Serves git for one run of the helper: {@code args} as git gave them, the caller's environment
   * and working directory, and its standard streams. Returns the exit status: 0, 1 after a {@code
   * fatal:} line on {@code err}, or 2 for a usage error. Relative paths in {@code env} ({@code
   * GIT_DIR} among them) are taken from {@code cwd}.
   */
  public static int run(
      String[] args,
      Map<String, String> env,
      Path cwd,
      InputStream in,
      OutputStream stdout,
      PrintStream err,
      Function<Map<String, String>, KnotlessRepos> repos) {
    PrintStream out = new PrintStream(stdout, false, StandardCharsets.UTF_8);
    if (args.length < 1) {
      err.println("usage: git-remote-knotless <remote> [<url>] (git runs this for you)");
      return 2;
    }
    String remote = args[0];
    String url = args.length > 1 ? args[1] : args[0];
    Path gitDir = cwd.resolve(env.getOrDefault("GIT_DIR", ".git")).normalize();
    try {
      long t = Trace.start();
      KnotlessRepos knotless = repos.apply(env);
      Trace.step("set up", t);
      RemoteHelper helper =
          new RemoteHelper(
              knotless,
              remote,
              url,
              Git.forCaller(gitDir, env, cwd),
              out,
              err,
              result -> CompactLauncher.afterPush(knotless, url, result, err));
      helper.serve(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
      out.flush();
      return 0;
    } catch (Exception e) {
      // The one place every failure ends: git shows this line to the user.
      out.flush();
      err.println("fatal: knotless: " + e.getMessage());
      return 1;
    }
  }
}
