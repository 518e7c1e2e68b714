package dev.knotless.runner.e2e;

import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import java.util.List;

/**
 * {@code knotless-run} as a bare JVM for tests that kill it with SIGKILL: starts the runner from
 * the command line and environment, prints {@code started}, and runs until killed. No stop
 * procedure ever runs in it.
 */
public final class RunnerProcessMain {
  private RunnerProcessMain() {}

  public static void main(String[] argv) throws Exception {
    RunnerOptions o = RunnerOptions.parse(List.of(argv), System.getenv()).orElseThrow();
    Runner.start(o, System.getenv());
    System.out.println("started");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
