package dev.knotless.cli;

import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.ProcessExit;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.storage.cli.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code knotless}: the owner tools' command line. Parses with picocli ({@code --flag value},
 * {@code --flag=value}, {@code --} before arguments that start with a dash, {@code --help} on every
 * command, {@code --version}) and hands typed arguments to the commands in {@code
 * dev.knotless.storage.cli}, which decide everything else. Exit codes: 0 ok, 1 failed, 2 usage
 * error, and what a command documents beyond that ({@code merge}: 3 not yet).
 */
@Command(
    name = "knotless",
    mixinStandardHelpOptions = true,
    versionProvider = KnotlessCli.Version.class,
    description = "The owner tools of knotless repositories: git repositories kept as records.",
    subcommands = {
      CommandLine.HelpCommand.class,
      LoginCli.class,
      LoginCli.Logout.class,
      RepoCli.class,
      CreateCli.class,
      RunnersCli.class,
      ChecksCli.class,
      CheckCli.class,
      LintCli.class,
      AccountCli.class,
      WorkflowsCli.class,
      CompletionCli.class,
      LogCli.class,
      RerunCli.class,
      MergeCli.class,
      QueueCli.class,
      QueueCli.Dequeue.class,
      SecretCli.class
    })
public final class KnotlessCli implements Runnable {
  /** The exit code of arguments that do not parse. */
  public static final int USAGE = 2;

  private final CliContext ctx;

  KnotlessCli(CliContext ctx) {
    this.ctx = ctx;
  }

  CliContext ctx() {
    return ctx;
  }

  /** {@code knotless} alone: the commands, on standard error, and a usage exit. */
  @Override
  public void run() {
    throw new UsageException("name a command (knotless help <command> says more)");
  }

  public static void main(String[] argv) {
    dev.knotless.atproto.ServiceAddresses.shortLivedProcess();
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    CliContext ctx =
        new CliContext(
            System.getenv(), out, System.err, () -> KnotlessRepos.fromEnvironment(System.getenv()));
    ProcessExit.now(run(Arrays.asList(argv), ctx));
  }

  /** Runs one invocation and returns its exit code. */
  public static int run(List<String> argv, CliContext ctx) {
    return commandLine(ctx).execute(argv.toArray(String[]::new));
  }

  /** The parser, writing to the context's streams. */
  static CommandLine commandLine(CliContext ctx) {
    CommandLine cl = new CommandLine(new KnotlessCli(ctx));
    // An argument such as @notes.txt is a value, never a file to read arguments from.
    cl.setExpandAtFiles(false);
    // Help fills the terminal's width (COLUMNS, else what the terminal says; 80 when unknown).
    cl.setUsageHelpAutoWidth(true);
    cl.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
    cl.setOut(new PrintWriter(ctx.out(), true));
    cl.setErr(new PrintWriter(ctx.err(), true));
    cl.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine at = e.getCommandLine();
          at.getErr().println("knotless: " + e.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(e, at.getErr());
          at.usage(at.getErr());
          return USAGE;
        });
    cl.setExecutionExceptionHandler(
        (e, at, parsed) -> {
          if (e instanceof UsageException) {
            at.getErr().println("knotless: " + e.getMessage());
            at.usage(at.getErr());
            return USAGE;
          }
          if (e instanceof IOException || e instanceof IllegalArgumentException) {
            // A space refused to an app password says which command logs in with OAuth.
            at.getErr().println("knotless: " + SpaceErrors.withLogin(e, "knotless login"));
            return 1;
          }
          throw e;
        });
    return cl;
  }

  /** The context of the invocation {@code spec} belongs to. */
  static CliContext ctx(CommandLine.Model.CommandSpec spec) {
    return ((KnotlessCli) spec.root().userObject()).ctx();
  }

  /** The version the build stamped into {@code version.properties}. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = KnotlessCli.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {"knotless " + p.getProperty("version", "unknown")};
    }
  }
}
