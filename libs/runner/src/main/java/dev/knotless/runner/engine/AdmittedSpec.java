package dev.knotless.runner.engine;

import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.schedule.Admission;
import dev.knotless.runner.schedule.RunClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run's admission changes in the spec it runs with: a run past its owner's allowance has its
 * log begin by saying so and how long it waited for a job, and every run but main's starts its
 * steps at a lower CPU priority. Stateless.
 */
final class AdmittedSpec {

  /**
   * The niceness of runs other than main's. Linux weighs a task at nice 10 at 110 against 1024 at
   * nice 0, about a tenth, as {@code --cpu-shares 256} against the default does under docker.
   */
  static final int BACKGROUND_NICENESS = 10;

  private AdmittedSpec() {}

  /** The spec as the run is to start, given how it was admitted. */
  static RunSpec apply(RunSpec spec, Admission admission) {
    RunSpec out = spec.withNiceness(niceness(admission.request().runClass()));
    if (admission.pastAllowance()) {
      // The allowance line comes first, before the planner's lines: the log begins with it.
      List<String> lines = new ArrayList<>();
      lines.add(allowanceLine(admission.request().privateRepo(), admission.waited()));
      lines.addAll(spec.preamble());
      out = out.withPreamble(lines);
    }
    return out;
  }

  /** MAIN's runs (pushes to the default branch, the batch that lands next) keep the full weight. */
  static int niceness(RunClass runClass) {
    return runClass == RunClass.MAIN ? 0 : BACKGROUND_NICENESS;
  }

  /** The first line of a run past its owner's allowance. */
  static String allowanceLine(boolean privateRepo, Duration waited) {
    return "==> this owner is past "
        + (privateRepo ? "the allowance for private repositories" : "the allowance")
        + " of this runner, so their runs go one at a time: this run waited "
        + human(waited)
        + " for a job";
  }

  /** A wait as a person reads it: 0 s, 42 s, 3 min 12 s, 2 h 05 min. */
  static String human(Duration d) {
    long s = Math.max(0, d.toSeconds());
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return s / 60 + " min " + String.format("%02d", s % 60) + " s";
    }
    return s / 3600 + " h " + String.format("%02d", (s % 3600) / 60) + " min";
  }
}
