package dev.knotless.runner.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * Splits {@code knotless-run}'s command line into flags and repositories with picocli, so it takes
 * the usual forms ({@code --flag value}, {@code --flag=value}, {@code --} before arguments that
 * start with a dash) and never reads arguments from an {@code @file}. What the values mean is
 * {@link RunnerOptions}'s to decide. Pure: the service is started only after this has parsed, so
 * {@code --help}, {@code --version} and a usage error start nothing. Stateless.
 */
public final class RunnerCommandLine {

  /** Flags that take a value, each of which may be given more than once. */
  static final List<String> VALUED =
      List.of(
          "--state",
          "--state-db",
          "--work",
          "--jobs",
          "--pull-jobs",
          "--owner-jobs",
          "--step-timeout",
          "--run-timeout",
          "--sweep",
          "--poll",
          "--stop-wait",
          "--jetstream",
          "--firehose",
          "--secrets",
          "--secrets-key",
          "--batch",
          "--depth",
          "--notice",
          "--paused",
          "--keep-checks",
          "--allowance",
          "--private-allowance",
          "--unmetered");

  /** Flags that take none. */
  static final List<String> SWITCHES =
      List.of("--pulls", "--pulls-only", "--discover", "--queue", "--log-json");

  private RunnerCommandLine() {}

  /** What a command line asks for. */
  public sealed interface Invocation {}

  /** {@code --help}: print {@link RunnerOptions#HELP}. */
  public record Help() implements Invocation {}

  /** {@code --version}: print {@code text}. */
  public record Version(String text) implements Invocation {}

  /** Run the runner with these options. */
  public record Run(RunnerOptions options) implements Invocation {}

  /**
   * Parses a command line.
   *
   * @param env the environment, for the defaults that depend on it
   * @throws RunnerOptions.UsageException naming the flag or argument that is wrong
   */
  public static Invocation parse(List<String> args, Map<String, String> env)
      throws RunnerOptions.UsageException {
    Tokens t = tokens(args);
    if (t.help()) {
      return new Help();
    }
    if (t.version()) {
      return new Version("knotless-run " + version());
    }
    Optional<RunnerOptions> o = RunnerOptions.parse(t, env);
    return o.<Invocation>map(Run::new).orElseGet(Help::new);
  }

  /**
   * The flags given, in the order {@link #VALUED} and {@link #SWITCHES} list them, each with its
   * values in the order given (a switch has one empty value per use), and the repositories.
   */
  record Tokens(
      boolean help, boolean version, Map<String, List<String>> flags, List<String> repos) {}

  static Tokens tokens(List<String> args) throws RunnerOptions.UsageException {
    CommandSpec spec = CommandSpec.create().name("knotless-run");
    spec.addOption(OptionSpec.builder("--help", "-h").usageHelp(true).build());
    spec.addOption(OptionSpec.builder("--version").versionHelp(true).build());
    List<String> valued = new ArrayList<>(VALUED);
    valued.addAll(ExecutorFlags.FLAGS);
    for (String f : valued) {
      spec.addOption(
          OptionSpec.builder(f).type(List.class).auxiliaryTypes(String.class).arity("1").build());
    }
    for (String f : SWITCHES) {
      spec.addOption(OptionSpec.builder(f).type(boolean[].class).arity("0").build());
    }
    spec.addPositional(
        PositionalParamSpec.builder()
            .index("0..*")
            .type(List.class)
            .auxiliaryTypes(String.class)
            .build());
    CommandLine cl = new CommandLine(spec);
    cl.setExpandAtFiles(false);
    ParseResult r;
    try {
      r = cl.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.MissingParameterException e) {
      throw new RunnerOptions.UsageException(missing(e) + " needs a value");
    } catch (CommandLine.UnmatchedArgumentException e) {
      String first = e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0);
      throw new RunnerOptions.UsageException(
          "unknown flag " + first.split("=", 2)[0] + " (see --help)");
    } catch (CommandLine.ParameterException e) {
      throw new RunnerOptions.UsageException(e.getMessage() + " (see --help)");
    }
    Map<String, List<String>> flags = new LinkedHashMap<>();
    for (String f : valued) {
      List<String> v = r.matchedOptionValue(f, List.of());
      if (!v.isEmpty()) {
        flags.put(f, List.copyOf(v));
      }
    }
    for (String f : SWITCHES) {
      boolean[] v = r.matchedOptionValue(f, new boolean[0]);
      if (v.length > 0) {
        flags.put(f, List.of(""));
      }
    }
    List<String> repos = r.matchedPositionalValue(0, List.of());
    return new Tokens(
        r.isUsageHelpRequested(), r.isVersionHelpRequested(), flags, List.copyOf(repos));
  }

  private static String missing(CommandLine.MissingParameterException e) {
    return e.getMissing().stream()
        .filter(a -> a instanceof OptionSpec)
        .map(a -> ((OptionSpec) a).longestName())
        .findFirst()
        .orElse("a flag");
  }

  /** The version the build stamped into {@code version.properties}. */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = RunnerCommandLine.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return p.getProperty("version", "unknown");
  }
}
