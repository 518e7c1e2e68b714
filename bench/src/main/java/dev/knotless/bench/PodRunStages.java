package dev.knotless.bench;

import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.StepResult;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.KubeletTimes;
import java.util.List;
import java.util.Locale;

/**
 * A whole one-step pod run cut into stages, from its hand-off to the executor's return: what the
 * run's own listener heard (its step started, first spoke, ended; the run ended) and what the mock
 * API server and the test kubelet saw (the pod's create, the kubelet's first sight of it, its
 * status Running, the first exec, the delete). Beside it, what was the test kubelet's and mock
 * server's own ({@link PodRun}'s share, over every exec of the run rather than those before its
 * first line): taken off, the rest is what a real kubelet would leave, if its runtime made
 * containers as fast.
 */
final class PodRunStages {

  /** The stages, in order; each from the end of the one before. */
  static final String[] STAGES = {
    "runner before the pod (checkout, overlays, spec)",
    "pod made -> test kubelet saw it",
    "  -> Running (docker's create and start, kubelet's status)",
    "Running -> first exec asked (the watch, our next step)",
    "first exec -> step started (checkout in, launch)",
    "step started -> first line",
    "first line -> step ended (the build, exit read)",
    "step ended -> pod delete asked (outputs out)",
    "pod delete -> run's result (outputs, log)",
    "run's result -> executor returned (cache finish)",
  };

  /** The listener of one run, by {@link System#nanoTime}. */
  static final class Heard implements RunListener {
    final long begin = System.nanoTime();
    volatile long started;
    volatile long firstLine;
    volatile long stepEnded;
    volatile long runEnded;

    @Override
    public void stepStarted(StepStarted event) {
      if (started == 0) {
        started = System.nanoTime();
      }
    }

    @Override
    public void logWritten(long offset, byte[] bytes) {
      if (started != 0 && stepEnded == 0 && firstLine == 0) {
        firstLine = System.nanoTime();
      }
    }

    @Override
    public void stepEnded(StepResult result, long logOffset) {
      if (stepEnded == 0) {
        stepEnded = System.nanoTime();
      }
    }

    @Override
    public void runEnded(RunResult result) {
      runEnded = System.nanoTime();
    }
  }

  private PodRunStages() {}

  /**
   * The stages of one run, in nanoseconds (one per {@link #STAGES}), then the whole run, then the
   * test kubelet's own share of it.
   */
  static long[] read(
      Heard heard,
      long returned,
      List<KubeApiServer.Request> requests,
      List<KubeletTimes.PodStart> pods,
      List<KubeletTimes.Exec> execs) {
    KubeletTimes.PodStart pod = PodRun.onlyPod(pods);
    long posted = 0;
    long deleted = 0;
    for (KubeApiServer.Request r : requests) {
      String line = r.line();
      if (posted == 0 && line.startsWith("POST ") && line.endsWith("/pods")) {
        posted = r.nanos();
      } else if (deleted == 0 && line.startsWith("DELETE ") && line.contains(pod.pod())) {
        deleted = r.nanos();
      }
    }
    long share = PodRun.startShare(pod, posted);
    long firstExec = 0;
    for (KubeletTimes.Exec e : execs) {
      if (!e.pod().equals(pod.pod())) {
        continue;
      }
      firstExec = firstExec == 0 ? e.requested() : firstExec;
      share += e.bridgeIn() + e.bridgeOut();
    }
    long[] at = {
      posted,
      pod.seen(),
      pod.running(),
      firstExec,
      heard.started,
      // A step that says nothing: its first line is its end.
      heard.firstLine == 0 ? heard.stepEnded : heard.firstLine,
      heard.stepEnded,
      deleted,
      heard.runEnded,
      returned
    };
    long[] out = new long[STAGES.length + 2];
    long before = heard.begin;
    for (int i = 0; i < at.length; i++) {
      if (at[i] == 0) {
        throw new IllegalStateException("stage " + STAGES[i] + " was not seen");
      }
      out[i] = at[i] - before;
      before = at[i];
    }
    out[STAGES.length] = returned - heard.begin;
    out[STAGES.length + 1] = share;
    return out;
  }

  /**
   * Prints the stages' medians, one column per kind of run ({@code names}), each kind's runs as
   * {@link #read} gives them; then each kind's whole run as measured and less the test kubelet's.
   */
  static void print(String[] names, long[][][] runs) {
    System.out.printf(Locale.ROOT, "%n%-62s", "where a run's time goes, medians (ms)");
    for (String n : names) {
      System.out.printf(Locale.ROOT, " %9s", n);
    }
    System.out.println();
    for (int s = 0; s < STAGES.length + 2; s++) {
      String label =
          s < STAGES.length
              ? STAGES[s]
              : s == STAGES.length ? "whole run" : "  of which the test kubelet's own";
      System.out.printf(Locale.ROOT, "%-62s", label);
      for (long[][] kind : runs) {
        System.out.printf(Locale.ROOT, " %9d", Figures.middle(column(kind, s)) / 1_000_000);
      }
      System.out.println();
    }
    System.out.printf(Locale.ROOT, "%-62s", "whole run less the test kubelet's own");
    for (long[][] kind : runs) {
      System.out.printf(Locale.ROOT, " %9d", Figures.middle(less(kind)) / 1_000_000);
    }
    System.out.println();
  }

  /** Each run's whole time less the test kubelet's own share. */
  static long[] less(long[][] kind) {
    long[] out = new long[kind.length];
    for (int i = 0; i < kind.length; i++) {
      out[i] = kind[i][STAGES.length] - kind[i][STAGES.length + 1];
    }
    return out;
  }

  private static long[] column(long[][] kind, int s) {
    long[] out = new long[kind.length];
    for (int i = 0; i < kind.length; i++) {
      out[i] = kind[i][s];
    }
    return out;
  }
}
