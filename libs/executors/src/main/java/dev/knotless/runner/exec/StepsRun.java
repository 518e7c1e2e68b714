package dev.knotless.runner.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run, from its directory made to its result, whichever executor runs it: the order of things
 * lives here, and where the steps execute is the {@link StepHost}'s. Not thread-safe: it runs on
 * the caller's thread, with the output pump writing only while that thread waits for the step.
 */
final class StepsRun {

  /** How long a step's output may take to end once its group is dead. */
  static final Duration OUTPUT_GRACE = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(StepsRun.class);

  private final RunSpec spec;
  private final RunDirectory dir;
  private final RunCancellation cancellation;
  private final RunListener listener;
  private final Clock clock;
  private final StepHost.Factory hosts;
  private final boolean linkObjects;
  private final List<StepResult> results = new ArrayList<>();
  private RunLog log;
  private StepHost host;
  private Map<String, String> env;
  private long firstStepNanos = -1;

  StepsRun(
      RunSpec spec,
      RunDirectory dir,
      RunCancellation cancellation,
      RunListener listener,
      Clock clock,
      StepHost.Factory hosts,
      boolean linkObjects) {
    this.spec = spec;
    this.dir = dir;
    this.cancellation = cancellation;
    this.listener = listener;
    this.clock = clock;
    this.hosts = hosts;
    this.linkObjects = linkObjects;
  }

  RunResult run() {
    RunOutcome outcome;
    try {
      outcome = runSteps();
      if (!(outcome instanceof RunOutcome.Errored)) {
        outcome = collectOutputs(outcome);
      }
    } finally {
      // Everything the steps started ends before their outputs are read or anything is filed.
      closeHost();
    }
    List<RunResult.OutputFile> outputs = List.of();
    if (!(outcome instanceof RunOutcome.Errored)) {
      try {
        // A file's name is the step's to choose, so it is masked as the log is.
        outputs =
            dir.readOutputs(spec.filter(), this::writeNote).stream()
                .map(o -> new RunResult.OutputFile(spec.filter().mask(o.name()), o.bytes()))
                .toList();
      } catch (IOException e) {
        outcome = new RunOutcome.Errored("could not read the run's outputs: " + e);
        writeNote(((RunOutcome.Errored) outcome).message());
      }
    }
    byte[] bytes = closeAndReadLog(outcome);
    RunResult result = new RunResult(results, outcome, bytes, outputs);
    notify(l -> l.runEnded(result));
    return result;
  }

  private RunOutcome runSteps() {
    try {
      log = new RunLog(dir.log(), spec.filter(), listener);
      return steps();
    } catch (IOException | UncheckedIOException e) {
      RunOutcome.Errored errored =
          new RunOutcome.Errored("the run failed in the runner: " + e.getMessage());
      skipRest("not run: " + errored.message());
      writeNote(errored.message());
      return errored;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancellation.cancel("the runner's thread was interrupted");
      String reason = cancellation.reason().orElseThrow();
      cancelRest(reason);
      return new RunOutcome.Cancelled(reason);
    }
  }

  /**
   * Has the host bring the outputs into the run's directory while it still holds them (a pod's are
   * on the pod's disk), so that one reading of that directory decides for every executor.
   */
  private RunOutcome collectOutputs(RunOutcome outcome) {
    if (host == null) {
      return outcome;
    }
    try {
      host.collectOutputs(outcome);
      return outcome;
    } catch (IOException e) {
      RunOutcome.Errored errored =
          new RunOutcome.Errored("could not read the run's outputs: " + e.getMessage());
      writeNote(errored.message());
      return errored;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      writeNote("the run's outputs were not read: the runner's thread was interrupted");
      return outcome;
    }
  }

  private RunOutcome steps() throws IOException, InterruptedException {
    for (String line : spec.preamble()) {
      log.lines(line);
    }
    if (cancellation.isCancelled()) {
      return cancelledBeforeFirstStep();
    }
    try {
      Checkout.make(
          spec.mirror(), spec.commit(), dir.checkout(), dir.root().resolve("git.out"), linkObjects);
    } catch (Checkout.Failed e) {
      log.lines(e.getMessage());
      skipRest("not run: the checkout failed");
      return new RunOutcome.Errored(e.getMessage());
    }
    try {
      openHost();
    } catch (StepHost.StartFailed e) {
      if (cancellation.isCancelled()) {
        // A cancel while the host started ends it (a pod deleted while pending, a container
        // removed): what that start then says is the cancel's doing, not a fault.
        return cancelledBeforeFirstStep();
      }
      log.lines(e.getMessage());
      skipRest("not run: " + e.getMessage());
      return new RunOutcome.Errored(e.getMessage());
    }
    String stop = null; // the note of every step after one that ended the run
    for (int i = 0; i < spec.steps().size(); i++) {
      ExecStep step = spec.steps().get(i);
      if (stop != null || !step.runs()) {
        skip(step, stop != null ? stop : step.skipReason());
        continue;
      }
      if (cancellation.isCancelled()) {
        cancelUnstarted(step, cancellation.reason().orElseThrow());
        stop = "skipped: the run was cancelled";
        continue;
      }
      TimeLimits.StepLimit limit = spec.limits().limitFor(step.timeout(), runElapsed());
      if (limit.limit().isZero()) {
        stop = "skipped: " + runUp();
        skip(step, stop);
        continue;
      }
      StepResult r = runStep(i, step, limit);
      if (r.status() == StepStatus.CANCELLED) {
        stop = "skipped: the run was cancelled";
      } else if (r.status() == StepStatus.FAILURE) {
        stop =
            r.note().equals("killed as " + runUp())
                ? "skipped: " + runUp()
                : "skipped: step " + Quoting.quote(step.name()) + " failed";
      }
    }
    return RunOutcome.of(results, cancellation.reason().orElse(null));
  }

  private RunOutcome cancelledBeforeFirstStep() throws IOException {
    String reason = cancellation.reason().orElseThrow();
    log.lines("cancelled before the first step: " + reason);
    skipRest("not run: the run was cancelled: " + reason);
    return new RunOutcome.Cancelled(reason);
  }

  private StepResult runStep(int index, ExecStep step, TimeLimits.StepLimit limit)
      throws IOException, InterruptedException {
    log.lines("==> " + step.name());
    if (firstStepNanos < 0) {
      firstStepNanos = System.nanoTime();
    }
    Instant started = clock.instant();
    StepHost.Step process;
    try {
      process = host.start(step, step.environment(env));
    } catch (IOException e) {
      throw new IOException("could not start step " + Quoting.quote(step.name()) + ": " + e, e);
    }
    long startOffset = log.offset();
    notify(
        l ->
            l.stepStarted(
                new RunListener.StepStarted(
                    index, step.name(), started, process.pid(), startOffset)));
    OutputPump pump =
        OutputPump.start(process.output(), process.pid(), log, spec.filter().secretMask());
    boolean timedOut = false;
    int exit;
    try {
      cancellation.attach(process::kill);
      if (!process.waitFor(limit.limit())) {
        timedOut = true;
        process.kill();
      }
      exit = process.waitForExit();
    } finally {
      cancellation.detach();
      process.ended();
    }
    int leftovers = 0;
    if (step.endLeftovers() && !timedOut && !cancellation.isCancelled()) {
      // Steps see different secrets here: nothing a step started outlives it to hand its
      // secrets to a later step, or to read a later step's (ExecStep.forRun).
      leftovers = host.endLeftovers();
    }
    boolean drained = pump.finish(OUTPUT_GRACE);
    if (leftovers > 0) {
      log.lines(
          "ended "
              + leftovers
              + " processes the step left running: where steps see different secrets, nothing"
              + " outlives its step");
    }
    if (!drained) {
      log.lines("output still open after the step ended: a process outside its group holds it");
    }
    StepStatus status;
    String note;
    if (timedOut && exit != 0) {
      status = StepStatus.FAILURE;
      note =
          limit.runBound()
              ? "killed as " + runUp()
              : "killed after " + seconds(limit.limit()) + "s, the step's time limit";
    } else if (cancellation.isCancelled() && exit != 0) {
      status = StepStatus.CANCELLED;
      note = "cancelled: " + cancellation.reason().orElseThrow();
    } else if (exit != 0) {
      status = StepStatus.FAILURE;
      note = process.exitNote(exit).orElse("exited with " + exit);
    } else {
      status = StepStatus.SUCCESS;
      note = "";
    }
    if (!note.isEmpty()) {
      log.lines(note);
    }
    StepResult result = new StepResult(step.name(), status, started, clock.instant(), exit, note);
    ended(result);
    return result;
  }

  private void skip(ExecStep step, String note) throws IOException {
    log.lines("==> " + step.name());
    log.lines(note);
    ended(StepResult.skipped(step.name(), clock.instant(), note));
  }

  private void cancelUnstarted(ExecStep step, String reason) throws IOException {
    log.lines("==> " + step.name());
    String note = "cancelled: " + reason;
    log.lines(note);
    Instant now = clock.instant();
    ended(new StepResult(step.name(), StepStatus.CANCELLED, now, now, StepResult.NO_EXIT, note));
  }

  private void ended(StepResult result) {
    results.add(result);
    long offset = log.offset();
    notify(l -> l.stepEnded(result, offset));
  }

  /** Records every step without a result as skipped, after a fault of the runner's. */
  private void skipRest(String note) {
    Instant now = clock.instant();
    for (int i = results.size(); i < spec.steps().size(); i++) {
      ended(StepResult.skipped(spec.steps().get(i).name(), now, note));
    }
  }

  /** Records the step that was going as cancelled and the rest as skipped. */
  private void cancelRest(String reason) {
    if (results.size() < spec.steps().size()) {
      Instant now = clock.instant();
      String name = spec.steps().get(results.size()).name();
      ended(
          new StepResult(
              name, StepStatus.CANCELLED, now, now, StepResult.NO_EXIT, "cancelled: " + reason));
    }
    skipRest("skipped: the run was cancelled");
  }

  /**
   * Makes the host ready, limited to {@code --step-timeout}; a cancel meanwhile closes it, so a
   * pull or a start that hangs never holds a cancelled run.
   */
  private void openHost() throws StepHost.StartFailed, InterruptedException, IOException {
    host = hosts.create(spec, new RunPaths(dir.root(), dir.checkout(), dir.outputs()));
    env = host.stepEnvironment(spec.env());
    StepHost opening = host;
    cancellation.attach(opening::close);
    try {
      opening.open(this::writeNote, spec.limits().step());
    } finally {
      cancellation.detach();
    }
  }

  private void closeHost() {
    if (host == null) {
      return;
    }
    try {
      host.close();
    } catch (RuntimeException e) {
      LOG.warn("could not end the run's host: {}", e.toString(), e);
      writeNote("could not end what the run started: " + e.getMessage());
    }
  }

  private Duration runElapsed() {
    return firstStepNanos < 0
        ? Duration.ZERO
        : Duration.ofNanos(System.nanoTime() - firstStepNanos);
  }

  private String runUp() {
    return "the run's " + seconds(spec.limits().run()) + "s were up";
  }

  /** Seconds as the log says them: whole when whole, else to the millisecond. */
  static String seconds(Duration d) {
    if (d.toMillis() % 1000 == 0) {
      return Long.toString(d.toSeconds());
    }
    return java.math.BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString();
  }

  /** Writes a note of the runner's to the log, if the log can still be written. */
  private void writeNote(String note) {
    if (log == null) {
      return;
    }
    try {
      log.lines(note);
    } catch (IOException e) {
      LOG.warn("could not write to the run's log {}: {}", dir.log(), e.toString());
    }
  }

  private byte[] closeAndReadLog(RunOutcome outcome) {
    if (log != null) {
      try {
        log.close();
        return dir.readLog();
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("could not read the run's log {}: {}", dir.log(), e.toString());
      }
    }
    String text = outcome instanceof RunOutcome.Errored err ? err.message() : "";
    return (spec.filter().mask(text) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private void notify(Consumer<RunListener> call) {
    notify(listener, call);
  }

  private static void notify(RunListener listener, Consumer<RunListener> call) {
    try {
      call.accept(listener);
    } catch (RuntimeException e) {
      // A listener's fault must not change the run's result; it is logged, not swallowed.
      LOG.warn("run listener {} failed: {}", listener.getClass().getName(), e.toString(), e);
    }
  }

  /** The result of a run whose directory could not even be made. */
  static RunResult errorWithoutLog(
      RunSpec spec, Clock clock, String message, RunListener listener) {
    Instant now = clock.instant();
    List<StepResult> steps =
        spec.steps().stream()
            .map(s -> StepResult.skipped(s.name(), now, "not run: " + message))
            .toList();
    byte[] log = (spec.filter().mask(message) + "\n").getBytes(StandardCharsets.UTF_8);
    RunResult result = new RunResult(steps, new RunOutcome.Errored(message), log, List.of());
    // Followers see what they see of any run: the log's one line, each step's end, the run's end.
    StepsRun.notify(listener, l -> l.logWritten(0, log.clone()));
    for (StepResult step : steps) {
      StepsRun.notify(listener, l -> l.stepEnded(step, log.length));
    }
    StepsRun.notify(listener, l -> l.runEnded(result));
    return result;
  }
}
