package dev.knotless.bench;

import dev.knotless.runner.queue.QueuePlan;
import dev.knotless.runner.queue.QueuePlan.Build;
import dev.knotless.runner.queue.QueuePlan.Cancel;
import dev.knotless.runner.queue.QueuePlan.Eject;
import dev.knotless.runner.queue.QueuePlan.Land;
import dev.knotless.runner.queue.QueuePlan.Outcome;
import dev.knotless.runner.queue.QueuePlan.Step;
import dev.knotless.runner.queue.QueueState;
import dev.knotless.runner.queue.QueueState.Batch;
import dev.knotless.runner.queue.QueueState.Pull;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Pulls landed per hour of runner time: the merge queue's decisions ({@link QueuePlan}, the code a
 * runner with {@code --queue} is to follow) against merging one pull at a time while every open
 * pull runs again after each merge, as a runner without a queue does. No PDS, no runs: each run is
 * counted and costs the same runner time, a batch's run as a pull's (the same workflows at one
 * commit). A run started ahead and then cancelled is counted in full, which overstates the queue's
 * cost.
 *
 * <p>Usage: {@code bin/bench Queue [pulls (32)] [1 in N breaks (8)] [minutes a run (10)] [trials
 * (2000)]}. Each trial draws which pulls break, independently at 1 in N, from a fixed seed.
 */
public final class QueueBench {

  private QueueBench() {}

  /** One trial's counts. */
  record Counts(int runs, int landed, int ejected, int pushes) {}

  public static void main(String[] args) {
    int pulls = args.length > 0 ? Integer.parseInt(args[0]) : 32;
    int breakRate = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    double minutes = args.length > 2 ? Double.parseDouble(args[2]) : 10;
    int trials = args.length > 3 ? Integer.parseInt(args[3]) : 2000;
    System.out.printf(
        Locale.ROOT,
        "%d pulls, each breaking the build at 1 in %d, %.0f min of runner time a run, %d trials%n%n",
        pulls,
        breakRate,
        minutes,
        trials);
    System.out.printf(
        Locale.ROOT,
        "%-40s %10s %10s %10s %12s%n",
        "way",
        "runs",
        "landed",
        "pushes",
        "pulls/hour");
    row("one at a time, every open pull rerun", pulls, breakRate, minutes, trials, 0, 0);
    for (int[] bd : new int[][] {{4, 1}, {8, 1}, {8, 2}, {16, 2}}) {
      row(
          "queue --batch " + bd[0] + " --depth " + bd[1],
          pulls,
          breakRate,
          minutes,
          trials,
          bd[0],
          bd[1]);
    }
  }

  private static void row(
      String name, int pulls, int breakRate, double minutes, int trials, int batch, int depth) {
    Random seeds = new Random(20261201L);
    long runs = 0;
    long landed = 0;
    long pushes = 0;
    for (int t = 0; t < trials; t++) {
      Random r = new Random(seeds.nextLong());
      List<Pull> queue = new ArrayList<>();
      Set<Pull> broken = new HashSet<>();
      for (int i = 0; i < pulls; i++) {
        Pull p = new Pull("at://did:plc:author/dev.knotless.pull/" + i, "head" + i);
        queue.add(p);
        if (r.nextInt(breakRate) == 0) {
          broken.add(p);
        }
      }
      Counts c = batch == 0 ? oneAtATime(queue, broken) : queue(queue, broken, batch, depth);
      runs += c.runs();
      landed += c.landed();
      pushes += c.pushes();
    }
    double hours = runs * minutes / 60.0;
    System.out.printf(
        Locale.ROOT,
        "%-40s %10.1f %10.1f %10.1f %12.2f%n",
        name,
        runs / (double) trials,
        landed / (double) trials,
        pushes / (double) trials,
        landed / hours);
  }

  /**
   * Every open pull runs when opened; the owner merges the first that passes, which moves the base,
   * so every pull still open runs again. A broken pull fails and is closed at its first run.
   */
  static Counts oneAtATime(List<Pull> pulls, Set<Pull> broken) {
    int runs = pulls.size();
    int good = (int) pulls.stream().filter(p -> !broken.contains(p)).count();
    for (int open = good - 1; open > 0; open--) {
      runs += open;
    }
    return new Counts(runs, good, pulls.size() - good, good);
  }

  /**
   * The queue, driven to empty: every batch built is a run started; the first batch's run ends
   * first, failing if it holds a broken pull.
   */
  static Counts queue(List<Pull> pulls, Set<Pull> broken, int batch, int depth) {
    List<Pull> queued = new ArrayList<>(pulls);
    QueueState[] state = {QueueState.empty("refs/heads/main")};
    String[] tip = {"base"};
    int[] counts = new int[4]; // runs, landed, ejected, pushes
    for (int guard = 0; guard < 100_000; guard++) {
      boolean built;
      do {
        Outcome o = QueuePlan.fill(state[0], queued, tip[0], batch, depth);
        state[0] = o.state();
        built = apply(o.steps(), state, tip, queued, counts);
      } while (built);
      if (state[0].running().isEmpty()) {
        return new Counts(counts[0], counts[1], counts[2], counts[3]);
      }
      Batch first = state[0].running().get(0);
      boolean fails = first.pulls().stream().anyMatch(broken::contains);
      Outcome o =
          fails ? QueuePlan.failed(state[0], first.id()) : QueuePlan.passed(state[0], first.id());
      state[0] = o.state();
      apply(o.steps(), state, tip, queued, counts);
    }
    throw new IllegalStateException("the queue never emptied");
  }

  /** Carries out the steps as a runner would; true if a batch was built. */
  private static boolean apply(
      List<Step> steps, QueueState[] state, String[] tip, List<Pull> queued, int[] counts) {
    boolean built = false;
    for (Step s : steps) {
      if (s instanceof Build b) {
        state[0] =
            QueuePlan.built(state[0], b.batch().id(), b.batch().base() + "+" + b.batch().id());
        counts[0]++;
        built = true;
      } else if (s instanceof Land l) {
        Batch b = state[0].running().get(0);
        tip[0] = b.tip();
        counts[1] += b.pulls().size();
        counts[3]++;
        queued.removeAll(b.pulls());
        Outcome o = QueuePlan.landed(state[0], l.batch().id());
        state[0] = o.state();
        built |= apply(o.steps(), state, tip, queued, counts);
      } else if (s instanceof Eject e) {
        counts[2]++;
        queued.remove(e.pull());
      } else if (s instanceof Cancel) {
        // Its run was started and is counted; its pulls are free for the next batch.
      }
    }
    return built;
  }
}
