package dev.knotless.runner.schedule;

import dev.knotless.runner.workflow.Superseded;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * A deterministic day of mixed traffic through the {@link Scheduler}, on simulated time: steady
 * pushes and pulls from many owners, a deploy every hour on the runner's own site, and one owner
 * who re-runs every open pull at once, twice. Prints each owner's share of job time, the queue time
 * per class and the longest wait of a MAIN run. Run {@link #main} to see the figures.
 */
final class DaySimulation {

  static final String SITE = "did:plc:runner";
  static final String BURST = "did:plc:burst";
  static final Instant MIDNIGHT = Instant.parse("2026-11-29T00:00:00Z");

  /** The figures of one simulated day. */
  record Report(
      Map<String, Long> jobMillisByOwner,
      Map<RunClass, List<Long>> waitsByClass,
      long longestMainWaitMillis,
      long longestOtherOwnersPullWaitMillis,
      List<String> deploysStarted,
      int runs,
      int cancelled) {

    double share(String owner) {
      long total = jobMillisByOwner.values().stream().mapToLong(Long::longValue).sum();
      return (double) jobMillisByOwner.getOrDefault(owner, 0L) / total;
    }

    static long percentile(List<Long> values, double p) {
      if (values.isEmpty()) {
        return 0;
      }
      List<Long> sorted = values.stream().sorted().toList();
      return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size())));
    }
  }

  private record Arrival(long at, RunRequest request, long durationMillis) {}

  private record Completion(long at, String runId) {}

  private final long seed;

  DaySimulation(long seed) {
    this.seed = seed;
  }

  Report run() {
    List<Arrival> arrivals = traffic(new Random(seed));
    Scheduler scheduler = new Scheduler(SchedulerConfig.defaults(4, SITE), new UsageLedger());
    PriorityQueue<Completion> completions =
        new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    Map<String, Arrival> byId = new HashMap<>();
    Map<String, Long> startedAt = new HashMap<>();
    Map<String, Long> jobMillis = new TreeMap<>();
    Map<RunClass, List<Long>> waits = new EnumMap<>(RunClass.class);
    for (RunClass c : RunClass.values()) {
      waits.put(c, new ArrayList<>());
    }
    List<String> deploys = new ArrayList<>();
    long longestMain = 0;
    long longestOtherPull = 0;
    int cancelled = 0;
    int next = 0;
    while (next < arrivals.size() || !completions.isEmpty()) {
      long now =
          Math.min(
              next < arrivals.size() ? arrivals.get(next).at() : Long.MAX_VALUE,
              completions.isEmpty() ? Long.MAX_VALUE : completions.peek().at());
      Instant instant = MIDNIGHT.plusMillis(now);
      while (!completions.isEmpty() && completions.peek().at() == now) {
        String id = completions.poll().runId();
        if (startedAt.containsKey(id)) {
          end(scheduler, id, now, startedAt, byId, jobMillis, instant);
        }
      }
      while (next < arrivals.size() && arrivals.get(next).at() == now) {
        Arrival a = arrivals.get(next++);
        byId.put(a.request().runId(), a);
        for (Decision d : scheduler.submit(a.request(), instant)) {
          if (d instanceof Decision.Cancel c) {
            cancelled++;
            if (c.running()) {
              end(scheduler, c.runId(), now, startedAt, byId, jobMillis, instant);
            } else {
              scheduler.fileEnded(c.runId());
            }
          }
        }
      }
      for (Admission a : scheduler.admit(instant)) {
        RunRequest r = a.request();
        long waited = a.waited().toMillis();
        waits.get(r.runClass()).add(waited);
        if (r.runClass() == RunClass.MAIN) {
          longestMain = Math.max(longestMain, waited);
        }
        if (r.subjectKind() == SubjectKind.PULL && !r.ownerDid().equals(BURST)) {
          longestOtherPull = Math.max(longestOtherPull, waited);
        }
        if (r.workflow().equals("deploy")) {
          deploys.add(r.revision());
        }
        startedAt.put(r.runId(), now);
        completions.add(new Completion(now + byId.get(r.runId()).durationMillis(), r.runId()));
      }
    }
    return new Report(
        jobMillis, waits, longestMain, longestOtherPull, deploys, arrivals.size(), cancelled);
  }

  private static void end(
      Scheduler scheduler,
      String id,
      long now,
      Map<String, Long> startedAt,
      Map<String, Arrival> byId,
      Map<String, Long> jobMillis,
      Instant instant) {
    long held = now - startedAt.remove(id);
    jobMillis.merge(byId.get(id).request().ownerDid(), held, Long::sum);
    scheduler.finished(id, held, instant);
    scheduler.fileEnded(id);
  }

  /** The day's runs, in arrival order. */
  private static List<Arrival> traffic(Random random) {
    List<Arrival> out = new ArrayList<>();
    int[] n = {0};
    long hour = Duration.ofHours(1).toMillis();
    long minute = Duration.ofMinutes(1).toMillis();
    // The site: a push to main every hour, which runs its checks and a deploy that must finish.
    for (int h = 0; h < 24; h++) {
      long at = h * hour + 5 * minute;
      String commit = "site-" + h;
      out.add(
          arrival(
              n,
              at,
              SITE,
              "site",
              "refs/heads/main",
              "ci",
              commit,
              RunClass.MAIN,
              false,
              4 * minute));
      out.add(
          arrival(
              n,
              at,
              SITE,
              "site",
              "refs/heads/main",
              "deploy",
              commit,
              RunClass.MAIN,
              true,
              3 * minute));
    }
    // Forty owners: pushes about every two hours each, most to main, and a pull every six.
    for (int o = 0; o < 40; o++) {
      String owner = String.format(Locale.ROOT, "did:plc:owner%02d", o);
      for (long at = random.nextInt(120) * minute;
          at < 24 * hour;
          at += (60 + random.nextInt(120)) * minute) {
        boolean main = random.nextInt(10) < 7;
        String ref = main ? "refs/heads/main" : "refs/heads/b" + random.nextInt(3);
        out.add(
            arrival(
                n,
                at,
                owner,
                "code",
                ref,
                "ci",
                "c" + n[0],
                main ? RunClass.MAIN : RunClass.OTHER,
                false,
                (1 + random.nextInt(6)) * minute));
      }
      for (long at = random.nextInt(360) * minute;
          at < 24 * hour;
          at += (240 + random.nextInt(240)) * minute) {
        String pull = "at://" + owner + "/dev.knotless.pull/" + at;
        out.add(pullRun(n, at, owner, pull, "h" + n[0], (2 + random.nextInt(6)) * minute));
      }
    }
    // One owner re-runs every one of 40 open pulls (two workflows each) at once, twice a day.
    for (long at : new long[] {10 * hour, 15 * hour}) {
      for (int p = 0; p < 40; p++) {
        String pull = "at://" + BURST + "/dev.knotless.pull/" + p;
        for (String wf : List.of("ci", "e2e")) {
          Arrival a =
              pullRun(n, at, BURST, pull, "h" + at + "-" + p, (3 + random.nextInt(6)) * minute);
          out.add(new Arrival(at, withWorkflow(a.request(), wf), a.durationMillis()));
        }
      }
    }
    out.sort((a, b) -> Long.compare(a.at(), b.at()));
    return out;
  }

  private static Arrival arrival(
      int[] n,
      long at,
      String owner,
      String repo,
      String ref,
      String wf,
      String commit,
      RunClass cls,
      boolean finish,
      long duration) {
    RunRequest r =
        new RunRequest(
            "run" + n[0]++,
            owner,
            owner + "/" + repo,
            ref,
            SubjectKind.REF,
            wf,
            commit,
            cls,
            finish ? Superseded.FINISH : Superseded.CANCEL,
            false);
    return new Arrival(at, r, duration);
  }

  private static Arrival pullRun(
      int[] n, long at, String owner, String pull, String rev, long duration) {
    RunRequest r =
        new RunRequest(
            "run" + n[0]++,
            owner,
            owner + "/code",
            pull,
            SubjectKind.PULL,
            "ci",
            rev,
            RunClass.OTHER,
            Superseded.CANCEL,
            false);
    return new Arrival(at, r, duration);
  }

  private static RunRequest withWorkflow(RunRequest r, String wf) {
    return new RunRequest(
        r.runId(),
        r.ownerDid(),
        r.repo(),
        r.subject(),
        r.subjectKind(),
        wf,
        r.revision(),
        r.runClass(),
        r.superseded(),
        r.privateRepo());
  }

  static String describe(Report r) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT, "runs %d, cancelled by newer commits %d%n", r.runs(), r.cancelled()));
    out.append(
        String.format(
            Locale.ROOT,
            "share of job time: burst owner %.1f%%, site %.1f%%, median other owner %.1f%%, largest other owner %.1f%%%n",
            100 * r.share(BURST),
            100 * r.share(SITE),
            100 * median(r, false),
            100 * median(r, true)));
    for (RunClass c : RunClass.values()) {
      List<Long> w = r.waitsByClass().get(c);
      if (!w.isEmpty()) {
        out.append(
            String.format(
                Locale.ROOT,
                "queue time %-5s runs %4d  mean %6.1fs  p95 %6.1fs  max %6.1fs%n",
                c,
                w.size(),
                w.stream().mapToLong(Long::longValue).average().orElse(0) / 1000,
                Report.percentile(w, 0.95) / 1000.0,
                w.stream().mapToLong(Long::longValue).max().orElse(0) / 1000.0));
      }
    }
    out.append(
        String.format(
            Locale.ROOT,
            "longest wait of a MAIN run %.1fs; of another owner's pull %.1fs%n",
            r.longestMainWaitMillis() / 1000.0,
            r.longestOtherOwnersPullWaitMillis() / 1000.0));
    out.append("deploys started in order: ").append(r.deploysStarted()).append('\n');
    return out.toString();
  }

  private static double median(Report r, boolean max) {
    List<Double> shares =
        r.jobMillisByOwner().keySet().stream()
            .filter(o -> o.startsWith("did:plc:owner"))
            .map(r::share)
            .sorted()
            .toList();
    return max ? shares.get(shares.size() - 1) : shares.get(shares.size() / 2);
  }

  public static void main(String[] args) {
    System.out.print(
        describe(new DaySimulation(args.length > 0 ? Long.parseLong(args[0]) : 1).run()));
  }
}
