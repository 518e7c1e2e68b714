package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code knotless} command line: finds the command named by the leading words and runs it. Exit
 * codes: 0 ok, 1 failed, 2 usage error.
 */
public final class KnotlessCli {
  /** Every command; add new ones here. */
  public static final List<Command> COMMANDS =
      List.of(
          new LoginCommand(),
          new CompactCommand(),
          new CommitCommand(),
          new RunnersCommand(),
          new ChecksCommand(),
          new RerunCommand(),
          new MergeCommand(),
          new SecretCommand(),
          new CreateCommand());

  private KnotlessCli() {}

  public static void main(String[] argv) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    CliContext ctx =
        new CliContext(
            System.getenv(), out, System.err, () -> KnotlessRepos.fromEnvironment(System.getenv()));
    System.exit(run(Arrays.asList(argv), ctx));
  }

  /** Runs one invocation and returns its exit code. */
  public static int run(List<String> argv, CliContext ctx) {
    if (argv.isEmpty() || argv.get(0).equals("help") || argv.get(0).equals("--help")) {
      usage(ctx.out());
      return argv.isEmpty() ? 2 : 0;
    }
    Command match = null;
    for (Command c : COMMANDS) {
      List<String> w = c.words();
      if (argv.size() >= w.size()
          && argv.subList(0, w.size()).equals(w)
          && (match == null || w.size() > match.words().size())) {
        match = c;
      }
    }
    if (match == null) {
      ctx.err().println("knotless: unknown command: " + String.join(" ", argv));
      usage(ctx.err());
      return 2;
    }
    try {
      return match.run(argv.subList(match.words().size(), argv.size()), ctx);
    } catch (Command.UsageException e) {
      ctx.err().println("knotless: " + e.getMessage());
      ctx.err().println("usage: knotless " + match.usage());
      return 2;
    } catch (IOException | IllegalArgumentException e) {
      ctx.err().println("knotless: " + e.getMessage());
      return 1;
    }
  }

  private static void usage(PrintStream s) {
    s.println("usage:");
    for (Command c : COMMANDS) {
      s.println("  knotless " + c.usage());
    }
  }
}
