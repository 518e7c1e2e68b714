package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.ProcessExit;
import java.io.IOException;

/**
 * The background compaction a push starts ({@link CompactLauncher}): {@code [--due] <url>}, run on
 * the remote helper's own classpath, so it needs none of the {@code knotless} command line. Not a
 * user's command; {@code knotless repo compact} is. Exit codes: 0 done, 1 failed, 2 usage.
 */
public final class CompactMain {
  private CompactMain() {}

  public static void main(String[] argv) {
    dev.knotless.atproto.ServiceAddresses.shortLivedProcess();
    boolean due = argv.length == 2 && argv[0].equals("--due");
    if (argv.length != 1 && !due) {
      System.err.println("usage: CompactMain [--due] <url>");
      System.exit(2);
    }
    CliContext ctx =
        new CliContext(
            System.getenv(),
            System.out,
            System.err,
            () -> KnotlessRepos.fromEnvironment(System.getenv()));
    try {
      ProcessExit.now(CompactCommand.run(argv[argv.length - 1], due, ctx));
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("knotless: " + e.getMessage());
      ProcessExit.now(1);
    }
  }
}
