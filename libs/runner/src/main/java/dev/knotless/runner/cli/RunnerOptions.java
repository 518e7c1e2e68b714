package dev.knotless.runner.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The command line of {@code knotless-run}, parsed and checked. Every flag has the default the
 * runner documents; {@link #HELP} describes them all. Immutable.
 *
 * @param repos the repositories to watch, each {@code <handle or did>/<name>} as given (the label)
 * @param state the state file, or null when the state is in a database ({@code stateDb})
 * @param stateDb the PostgreSQL database to keep the state in ({@code jdbc:postgresql://...}, no
 *     password in it), or null for the state file
 * @param work where runs get their temporary directories
 * @param jobs how many runs go at once
 * @param pullJobs how many of those every class but Main may hold
 * @param ownerJobs how many one owner's runs may hold, or 0 for no cap
 * @param stepTimeout the limit on each step
 * @param runTimeout the limit on a run's steps together, or null for none
 * @param sweep how often every door is rung
 * @param stopWait how long a stop waits for runs to end before cancelling them
 * @param executor the executor's kind ({@code --executor}: {@code docker}, the default, or {@code
 *     shell}) with the settings it read from its own flags
 * @param jetstream the Jetstream to follow, unless {@code firehose} is set
 * @param firehose a PDS's subscribeRepos to follow instead, or null
 * @param secrets the secrets file, or null
 * @param paused the operator's paused-owners file, or null
 * @param keepChecks days the default branch's checks are kept, 0 to prune nothing
 * @param allowanceMinutes public minutes per owner per 30 days, or 0 for none
 * @param privateAllowanceMinutes the same for private repositories, or 0
 * @param unmetered owners no allowance applies to
 * @param trust owners whose repositories' pushes are code they vouch for ({@code --trust}), run
 *     with {@code --trusted-runtime}
 * @param pulls whether open pulls are checked ({@code --pulls}, or {@code --pulls-only})
 * @param pullsOnly whether only pulls run here, pushes being another runner's ({@code
 *     --pulls-only})
 * @param appview the appview ({@code KNOTLESS_APPVIEW}) pulls, owners' sealed secrets and, with
 *     {@code discover}, repositories naming the runner are read from; null when unset
 * @param secretsKey the file of the runner's keys ({@code --secrets-key}; {@code secrets-key.json}
 *     beside the state file by default), or null with {@code --state-db} and no {@code
 *     --secrets-key}: then owners' sealed secrets are not opened
 * @param discover whether repositories whose record names the runner are found and watched ({@code
 *     --discover})
 * @param queue whether this runner lands the merge queue of the repositories it may ({@code
 *     --queue}; docs/merge.md)
 * @param batch the most queued pulls in one batch ({@code --batch}, 8)
 * @param depth the most batches checked at once on a branch, each built ahead on the one before
 *     ({@code --depth}, 2)
 * @param notice how often the merge queue's records are read again with {@code queue} ({@code
 *     --notice}, 30 s)
 * @param logJson whether the log is one JSON object a line, as the services write it ({@code
 *     --log-json})
 * @param poll how often the spaces of private repositories are asked what was written there ({@code
 *     --poll}, 10 s)
 */
public record RunnerOptions(
    List<String> repos,
    Path state,
    String stateDb,
    Path work,
    int jobs,
    int pullJobs,
    int ownerJobs,
    Duration stepTimeout,
    Duration runTimeout,
    Duration sweep,
    Duration stopWait,
    dev.knotless.runner.exec.ChosenExecutor<?> executor,
    URI jetstream,
    URI firehose,
    Path secrets,
    Path paused,
    int keepChecks,
    long allowanceMinutes,
    long privateAllowanceMinutes,
    Set<String> unmetered,
    Set<String> trust,
    boolean pulls,
    boolean pullsOnly,
    URI appview,
    Path secretsKey,
    boolean discover,
    boolean queue,
    int batch,
    int depth,
    Duration notice,
    boolean logJson,
    Duration poll) {

  /** The environment variable naming the appview. */
  public static final String APPVIEW = "KNOTLESS_APPVIEW";

  /** The public Jetstream the runner follows by default. */
  public static final URI DEFAULT_JETSTREAM =
      URI.create("wss://jetstream2.us-east.bsky.network/subscribe");

  /** The user {@code --state-db} connects as, when the URL names none. */
  public static final String STATE_DB_USER = "KNOTLESS_STATE_DB_USER";

  /** The password {@code --state-db} connects with; never part of the URL. */
  public static final String STATE_DB_PASSWORD = "KNOTLESS_STATE_DB_PASSWORD";

  /** What {@code knotless-run --help} prints: {@link RunnerHelp#TEXT}. */
  public static final String HELP = RunnerHelp.TEXT;

  /** A command line that cannot be used, with what is wrong. */
  public static final class UsageException extends Exception {
    public UsageException(String message) {
      super(message);
    }
  }

  /**
   * Parses a command line.
   *
   * @param env the environment, for the default paths
   * @return the options, or empty when {@code --help} or {@code --version} was asked for ({@link
   *     RunnerCommandLine#parse} tells them apart)
   * @throws UsageException naming the flag or argument that is wrong
   */
  public static Optional<RunnerOptions> parse(List<String> args, Map<String, String> env)
      throws UsageException {
    RunnerCommandLine.Tokens t = RunnerCommandLine.tokens(args);
    return t.help() || t.version() ? Optional.empty() : parse(t, env);
  }

  /** The options the flags and repositories {@code t} holds make. */
  static Optional<RunnerOptions> parse(RunnerCommandLine.Tokens t, Map<String, String> env)
      throws UsageException {
    List<String> repos = new ArrayList<>();
    Path state = null;
    String stateDb = null;
    Path work = Path.of(System.getProperty("java.io.tmpdir"), "knotless-run");
    int jobs = 4;
    Integer pullJobs = null;
    int ownerJobs = 0;
    Duration stepTimeout = Duration.ofSeconds(1800);
    Duration runTimeout = null;
    Duration sweep = Duration.ofSeconds(600);
    Duration stopWait = Duration.ofSeconds(900);
    ExecutorFlags executorFlags = new ExecutorFlags(env);
    URI jetstream = DEFAULT_JETSTREAM;
    URI firehose = null;
    Path secrets = null;
    Path paused = null;
    int keepChecks = 30;
    long allowance = 0;
    long privateAllowance = 0;
    Set<String> unmetered = new LinkedHashSet<>();
    boolean pulls = false;
    boolean pullsOnly = false;
    Path secretsKey = null;
    boolean discover = false;
    boolean queue = false;
    int batch = 8;
    int depth = 2;
    Duration notice = null;
    Duration poll = Duration.ofSeconds(10);
    boolean logJson = false;
    for (Map.Entry<String, List<String>> flag : t.flags().entrySet()) {
      String a = flag.getKey();
      for (String value : flag.getValue()) {
        Parser p = new Parser(value);
        switch (a) {
          case "--state" -> state = Path.of(p.value(a));
          case "--state-db" -> stateDb = p.stateDb(a);
          case "--work" -> work = Path.of(p.value(a));
          case "--jobs" -> jobs = p.positive(a);
          case "--pull-jobs" -> pullJobs = p.positive(a);
          case "--owner-jobs" -> ownerJobs = p.positive(a);
          case "--step-timeout" -> stepTimeout = Duration.ofSeconds(p.positive(a));
          case "--run-timeout" -> runTimeout = Duration.ofSeconds(p.positive(a));
          case "--sweep" -> sweep = Duration.ofSeconds(p.positive(a));
          case "--stop-wait" -> stopWait = Duration.ofSeconds(p.nonNegative(a));
          case "--pulls" -> pulls = true;
          case "--pulls-only" -> {
            pulls = true;
            pullsOnly = true;
          }
          case "--jetstream" -> jetstream = p.uri(a);
          case "--firehose" -> firehose = p.uri(a);
          case "--secrets" -> secrets = Path.of(p.value(a));
          case "--secrets-key" -> secretsKey = Path.of(p.value(a));
          case "--discover" -> discover = true;
          case "--log-json" -> logJson = true;
          case "--queue" -> queue = true;
          case "--batch" -> batch = p.positive(a);
          case "--depth" -> depth = p.positive(a);
          case "--notice" -> notice = Duration.ofSeconds(p.positive(a));
          case "--poll" -> poll = Duration.ofSeconds(p.positive(a));
          case "--paused" -> paused = Path.of(p.value(a));
          case "--keep-checks" -> keepChecks = p.nonNegative(a);
          case "--allowance" -> allowance = p.positive(a);
          case "--private-allowance" -> privateAllowance = p.positive(a);
          case "--unmetered" -> {
            String did = p.value(a);
            if (!did.startsWith("did:")) {
              throw new UsageException("--unmetered " + did + ": expected a DID");
            }
            unmetered.add(did);
          }
          default -> {
            if (ExecutorFlags.FLAGS.contains(a)) {
              executorFlags.take(a, p.value(a));
            } else {
              throw new UsageException("unknown flag " + a + " (see --help)");
            }
          }
        }
      }
    }
    // A kind reads its flags here, so a bad value is refused before what depends on the rest.
    dev.knotless.runner.exec.ChosenExecutor<?> executor = executorFlags.executor();
    boolean shell = executor.name().equals(dev.knotless.runner.exec.ShellKind.NAME);
    for (String r : t.repos()) {
      repos.add(checkRepo(r));
    }
    if (repos.isEmpty() && !discover) {
      throw new UsageException(
          "name at least one repository to watch, as <handle or did>/<name>, or --discover");
    }
    if (state != null && stateDb != null) {
      throw new UsageException(
          "--state and --state-db: the state is kept in one place; name one of them");
    }
    if (stateDb == null && state == null) {
      state = defaultState(env);
    }
    int pull = pullJobs != null ? pullJobs : Math.max(1, jobs / 2);
    if (secretsKey == null && state != null) {
      secretsKey = state.toAbsolutePath().resolveSibling("secrets-key.json");
    }
    URI appview = appview(env);
    if (pulls) {
      String flag = pullsOnly ? "--pulls-only" : "--pulls";
      if (shell) {
        throw new UsageException(
            flag
                + " refuses --executor shell: a pull is anyone's code, and under shell its steps"
                + " run as this user, who can read the secrets file and the runner's session;"
                + " use the docker executor");
      }
      if (appview == null) {
        throw new UsageException(
            flag + " needs " + APPVIEW + ": open pulls are listed from the appview");
      }
    }
    if (queue) {
      if (shell) {
        throw new UsageException(
            "--queue refuses --executor shell: a batch is pulls' code, and under shell its steps"
                + " run as this user, who can read the secrets file and the runner's session;"
                + " use the docker executor");
      }
      if (!pulls || pullsOnly) {
        throw new UsageException(
            "--queue needs --pulls: the queue lands open pulls, which are read as --pulls reads"
                + " them (and --pulls-only leaves landing to another runner)");
      }
    }
    if (notice != null && !queue) {
      throw new UsageException(
          "--notice needs --queue: it is how often the queue's records are read");
    }
    if (discover && appview == null) {
      throw new UsageException(
          "--discover needs " + APPVIEW + ": repositories naming the runner are listed there");
    }
    return Optional.of(
        new RunnerOptions(
            List.copyOf(repos),
            state,
            stateDb,
            work,
            jobs,
            Math.min(pull, jobs),
            ownerJobs,
            stepTimeout,
            runTimeout,
            sweep,
            stopWait,
            executor,
            jetstream,
            firehose,
            secrets,
            paused,
            keepChecks,
            allowance,
            privateAllowance,
            Set.copyOf(unmetered),
            executorFlags.trust(),
            pulls,
            pullsOnly,
            appview,
            secretsKey,
            discover,
            queue,
            batch,
            depth,
            notice != null ? notice : Duration.ofSeconds(30),
            logJson,
            poll));
  }

  private static URI appview(Map<String, String> env) throws UsageException {
    String v = env.get(APPVIEW);
    if (v == null || v.isBlank()) {
      return null;
    }
    try {
      URI appview = URI.create(v.strip());
      if (appview.getScheme() == null || appview.getHost() == null) {
        throw new IllegalArgumentException();
      }
      return appview;
    } catch (IllegalArgumentException e) {
      throw new UsageException(APPVIEW + " " + v + ": expected a URL such as https://host");
    }
  }

  private static String checkRepo(String label) throws UsageException {
    String s = label.startsWith("knotless://") ? label.substring("knotless://".length()) : label;
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1 || s.indexOf('/', slash + 1) >= 0) {
      throw new UsageException(
          "repository " + label + ": expected <handle or did>/<name>, like alice.example.com/site");
    }
    return label;
  }

  /** The state file when no flag names one. */
  public static Path defaultState(Map<String, String> env) {
    String xdg = env.get("XDG_STATE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".local", "state");
    return base.resolve("knotless-run").resolve("state.json");
  }

  /** One flag's value, read as the flag needs it. */
  private static final class Parser {
    private final String value;

    Parser(String value) {
      this.value = value;
    }

    String value(String flag) {
      return value;
    }

    int nonNegative(String flag) throws UsageException {
      String v = value(flag);
      try {
        int n = Integer.parseInt(v);
        if (n < 0) {
          throw new NumberFormatException();
        }
        return n;
      } catch (NumberFormatException e) {
        throw new UsageException(flag + " " + v + ": expected a whole number, 0 or more");
      }
    }

    int positive(String flag) throws UsageException {
      int n = nonNegative(flag);
      if (n == 0) {
        throw new UsageException(flag + " 0: expected a whole number above 0");
      }
      return n;
    }

    /** A PostgreSQL JDBC URL with a host, and without a password, which is read from the env. */
    String stateDb(String flag) throws UsageException {
      String v = value(flag);
      String prefix = "jdbc:postgresql://";
      if (v.toLowerCase(Locale.ROOT).matches(".*[?&]password=.*")) {
        // The URL is not echoed: it holds the password.
        throw new UsageException(
            flag + ": the URL holds a password; give it in " + STATE_DB_PASSWORD + " instead");
      }
      String host = v.startsWith(prefix) ? v.substring(prefix.length()).split("[/?]", 2)[0] : "";
      if (host.contains("@")) {
        throw new UsageException(
            flag
                + ": the URL holds a user or password before its host; give them in "
                + STATE_DB_USER
                + " and "
                + STATE_DB_PASSWORD
                + " instead");
      }
      if (host.isEmpty()) {
        throw new UsageException(
            flag
                + " "
                + v
                + ": expected a PostgreSQL JDBC URL such as jdbc:postgresql://db.example.com/knotless");
      }
      return v;
    }

    URI uri(String flag) throws UsageException {
      String v = value(flag);
      try {
        URI u = URI.create(v);
        if (u.getScheme() == null || u.getHost() == null) {
          throw new IllegalArgumentException();
        }
        return u;
      } catch (IllegalArgumentException e) {
        throw new UsageException(flag + " " + v + ": expected a URL such as wss://host/subscribe");
      }
    }
  }
}
