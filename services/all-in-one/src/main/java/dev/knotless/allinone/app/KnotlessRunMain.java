package dev.knotless.allinone.app;

import dev.knotless.runner.cli.RunnerCommandLine;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.KeyCommand;
import dev.knotless.runner.engine.Runner;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.jboss.logging.Logger;
import sun.misc.Signal;

/** {@code knotless-run}: parses the command line, starts the runner, and stops it on a signal. */
@QuarkusMain
public class KnotlessRunMain implements QuarkusApplication {

  private static final Logger LOG = Logger.getLogger(KnotlessRunMain.class);

  private final RunnerMetrics metrics;

  @Inject
  public KnotlessRunMain(RunnerMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * Parses the command line first: {@code --help}, {@code --version}, {@code secrets-key} and a
   * usage error are answered here and exit, so they start nothing (no metrics port, no runner).
   * Only a command line that runs the runner starts Quarkus.
   */
  public static void main(String... args) {
    if (args.length > 0 && args[0].equals(KeyCommand.WORD)) {
      System.exit(
          KeyCommand.run(
              List.of(args).subList(1, args.length),
              System.getenv(),
              java.time.Clock.systemUTC(),
              System.out,
              System.err));
    }
    if (args.length > 0
        && (args[0].equals(dev.knotless.runner.pass.RunnerSessions.LOGIN)
            || args[0].equals(dev.knotless.runner.pass.RunnerSessions.LOGOUT))) {
      System.exit(
          dev.knotless.runner.pass.RunnerSessions.command(
              args[0],
              List.of(args).subList(1, args.length),
              System.getenv(),
              System.out,
              System.err));
    }
    RunnerCommandLine.Invocation invocation;
    try {
      invocation = RunnerCommandLine.parse(List.of(args), System.getenv());
    } catch (RunnerOptions.UsageException e) {
      System.err.println("knotless-run: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (invocation instanceof RunnerCommandLine.Help) {
      System.out.print(RunnerOptions.HELP);
      System.exit(0);
    } else if (invocation instanceof RunnerCommandLine.Version v) {
      System.out.println(v.text());
      System.exit(0);
    }
    if (invocation instanceof RunnerCommandLine.Run run && run.options().logJson()) {
      // Read as Quarkus sets its logging up, before the first line.
      System.setProperty("quarkus.log.console.json.enabled", "true");
    }
    Quarkus.run(KnotlessRunMain.class, args);
  }

  @Override
  public int run(String... args) throws Exception {
    // main() parsed this command line already; it parses the same again.
    Optional<RunnerOptions> parsed;
    try {
      parsed = RunnerOptions.parse(List.of(args), System.getenv());
    } catch (RunnerOptions.UsageException e) {
      System.err.println("knotless-run: " + e.getMessage());
      return 2;
    }
    if (parsed.isEmpty()) {
      System.out.print(RunnerOptions.HELP);
      return 0;
    }
    CountDownLatch stopAsked = new CountDownLatch(1);
    // Heard even during startup: the stop waits for the start to finish, then stops.
    Signal.handle(new Signal("TERM"), s -> stopAsked.countDown());
    Signal.handle(new Signal("INT"), s -> stopAsked.countDown());
    Runner runner;
    try {
      runner = Runner.start(parsed.get(), System.getenv(), metrics.runs());
    } catch (IOException e) {
      LOG.error("knotless-run cannot start: " + e.getMessage());
      return 1;
    }
    metrics.watch(runner);
    stopAsked.await();
    LOG.info("stop asked for");
    runner.stop();
    return 0;
  }
}
