package dev.knotless.runner.exec;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The shell executor's host: each step is {@code setsid sh -ec <script>} in the checkout, as the
 * runner's own user, and whatever a step leaves in its process group is killed as it ends, since
 * nothing else would end it. Not thread-safe but for {@link Step#kill}.
 */
final class ShellHost implements StepHost {

  private final RunSpec spec;
  private final RunPaths paths;
  private final Map<String, String> inherited;

  ShellHost(RunSpec spec, RunPaths paths, Map<String, String> inherited) {
    this.spec = spec;
    this.paths = paths;
    this.inherited = inherited;
  }

  @Override
  public void open(Consumer<String> log, Duration limit) {
    // The host is the runner's own: nothing to make ready.
  }

  @Override
  public Map<String, String> stepEnvironment(Map<String, String> runEnv) {
    Map<String, String> env = new LinkedHashMap<>(inherited);
    env.putAll(runEnv);
    env.put(ShellExecutor.OUTPUTS_VARIABLE, paths.outputs().toString());
    return env;
  }

  @Override
  public Step start(ExecStep step, Map<String, String> env) throws IOException {
    StepProcess process = StepProcess.start(paths.checkout(), step.script(), env, spec.niceness());
    return new Step() {
      @Override
      public long pid() {
        return process.pid();
      }

      @Override
      public InputStream output() {
        return process.output();
      }

      @Override
      public boolean waitFor(Duration limit) throws InterruptedException {
        return process.waitFor(limit);
      }

      @Override
      public int waitForExit() throws InterruptedException {
        return process.waitForExit();
      }

      @Override
      public void kill() {
        process.killGroup();
      }

      @Override
      public void ended() {
        // Nothing a step started outlives it: what it left in the background would hold its
        // output open, and could hold its secrets for a later step to read.
        process.killGroup();
      }
    };
  }

  @Override
  public void close() {
    // Every step's group was killed as it ended.
  }
}
