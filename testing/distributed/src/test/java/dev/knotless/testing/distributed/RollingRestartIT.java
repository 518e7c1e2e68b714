package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A rolling restart of the replicated services, one replica at a time (SIGTERM, then started
 * again), during 50 pushes across 10 repositories whose steps print for seconds in their pods, one
 * of which also deploys (superseded: finish). Each replica is restarted only once run pods are seen
 * running, while its round of pushes goes on. Every push gets exactly one check per workflow, and
 * each ends: a push a burst's next push superseded ends cancelled, as runner.md's supersede rules
 * say; no check is left running; each deploy runs to its end once, in push order, one after the
 * other; and every check's log holds the lines its run printed, each once and in order (all of them
 * for a run that passed). The scheduler's own failover is SchedulerIT's.
 */
class RollingRestartIT {
  private static final int REPOS = 10;
  private static final int LINES = 24;
  private static final long STAGGER_MS = 700;

  /**
   * Pushes per round (one round per restart: check-writers, reconcilers, ingester) and repository.
   * A 2 is a burst: the second push follows once the first's checks are filed, superseding its run
   * (and queueing a second deploy behind the first). The reconcilers' rounds push to every
   * repository, so each reconciler has runs of its own to be stopped amid: 50 pushes in all.
   */
  private static final int[][] PLAN = {
    {2, 2, 2, 2, 2, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 2, 2, 2, 2, 2},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 2, 2, 2, 2, 0, 0, 0, 0, 0},
  };

  private static LocalDistributed shape;
  private static final List<OwnerRepo> owners = new ArrayList<>();
  private static List<CheckRecord> seen = List.of();
  private static long seenAt;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("rolling-restart-it");
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: count
            run: for i in $(seq 1 %d); do echo "line $i of the run"; sleep 0.5; done
        """
            .formatted(LINES);
    String deploy =
        """
        on: {push: {refs: [main]}}
        superseded: finish
        steps:
          - name: count
            run: for i in $(seq 1 %d); do echo "line $i of the run"; sleep 0.5; done
        """
            .formatted(LINES);
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    for (int i = 0; i < REPOS; i++) {
      Map<String, String> files = new HashMap<>(Map.of(".knotless/workflows/ci.yml", ci));
      if (i == 0) {
        files.put(".knotless/workflows/deploy.yml", deploy);
      }
      owners.add(shape.ownerRepo("site-" + i, files));
    }
    shape.startCheckWriter();
    shape.startCheckWriter();
    shape.startReconciler();
    shape.startReconciler();
    shape.startScheduler();
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  void aRollingRestartDuringFiftyPushesLosesNoRunNoLineAndNoDeploy() throws Exception {
    long t0 = System.nanoTime();
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline passes",
        () ->
            shape.services("reconciler").stream().mapToDouble(RollingRestartIT::passes).sum()
                >= REPOS);
    List<ServiceProcess> order = new ArrayList<>();
    order.addAll(shape.services("check-writer"));
    order.addAll(shape.services("reconciler"));
    order.addAll(shape.services("ingester"));
    assertEquals(PLAN.length, order.size(), "one round of pushes per replica restarted");

    List<List<String>> pushed = new ArrayList<>();
    for (int i = 0; i < REPOS; i++) {
      pushed.add(new ArrayList<>());
    }
    ExecutorService rounds = Executors.newSingleThreadExecutor();
    List<String> restarts = new ArrayList<>();
    try {
      for (int r = 0; r < PLAN.length; r++) {
        int round = r;
        Future<?> pushing = rounds.submit(() -> pushRound(round, pushed));
        ServiceProcess target = order.get(r);
        long inFlight = awaitInFlight(target);
        long t = System.nanoTime();
        target.restart();
        restarts.add(
            "%s with %d runs going, %d ms"
                .formatted(target, inFlight, (System.nanoTime() - t) / 1_000_000));
        pushing.get();
      }
    } finally {
      rounds.shutdownNow();
    }
    int pushes = pushed.stream().mapToInt(List::size).sum();
    assertEquals(50, pushes, "pushes made");

    Map<String, CheckRecord> byCommitAndWorkflow = new HashMap<>();
    String[] notEnded = {""};
    try {
      awaitEveryCheckEnded(pushed, byCommitAndWorkflow, notEnded);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; not ended: " + notEnded[0], e);
    }

    int superseded = 0;
    List<CheckRecord> deployed = new ArrayList<>();
    for (int i = 0; i < REPOS; i++) {
      List<String> shas = pushed.get(i);
      for (int k = 0; k < shas.size(); k++) {
        for (String w : workflows(i)) {
          CheckRecord c = byCommitAndWorkflow.get(shas.get(k) + " " + w);
          if (c.status() == CheckStatus.CANCELLED) {
            assertTrue(String.valueOf(c.note()).contains("superseded"), c.toString());
            assertTrue(k < shas.size() - 1, "the last push's run was superseded: " + c);
            superseded++;
          } else {
            assertEquals(CheckStatus.SUCCESS, c.status(), c.toString());
            if (w.equals("deploy")) {
              deployed.add(c);
            }
          }
          assertWholeLog(c);
        }
      }
    }
    for (int k = 1; k < deployed.size(); k++) {
      assertTrue(
          !deployed.get(k).startedAt().isBefore(deployed.get(k - 1).endedAt()),
          "each deploy ran after the one pushed before it ended: " + deployed);
    }
    System.out.printf(
        "[RollingRestartIT] %d pushes to %d repositories, %d runs superseded, %d deploys; restarts:"
            + " %s; %d s in all%n",
        pushes,
        REPOS,
        superseded,
        deployed.size(),
        restarts,
        (System.nanoTime() - t0) / 1_000_000_000);
  }

  /** Waits until each push has one check per workflow and every check in the account ended. */
  private static void awaitEveryCheckEnded(
      List<List<String>> pushed, Map<String, CheckRecord> byCommitAndWorkflow, String[] notEnded)
      throws Exception {
    Checks.await(
        Duration.ofSeconds(240),
        "every push's checks ended",
        () -> {
          byCommitAndWorkflow.clear();
          List<Record> all = Checks.all(shape);
          // By repository too: two repositories' first commits may share a SHA; pushed ones do not.
          java.util.Set<String> once = new java.util.HashSet<>();
          for (Record rec : all) {
            CheckRecord c = CheckRecord.fromJson(rec.value());
            assertTrue(
                once.add(c.repo() + " " + c.commit() + " " + c.workflow()),
                "two checks of one push's workflow: " + c);
            byCommitAndWorkflow.put(c.commit() + " " + c.workflow(), c);
          }
          for (int i = 0; i < REPOS; i++) {
            for (String sha : pushed.get(i)) {
              for (String w : workflows(i)) {
                CheckRecord c = byCommitAndWorkflow.get(sha + " " + w);
                if (c == null || !c.status().ended()) {
                  notEnded[0] = "repository " + i + ", " + w + " at " + sha + ": " + c;
                  return false;
                }
              }
            }
          }
          for (Record rec : all) {
            if (!CheckRecord.fromJson(rec.value()).status().ended()) {
              notEnded[0] = rec.value().toString();
              return false;
            }
          }
          return true;
        });
  }

  /** The round's pushes, each repository's staggered after the one before it. */
  private static void pushRound(int round, List<List<String>> pushed) {
    ExecutorService pool = Executors.newFixedThreadPool(REPOS);
    try {
      List<Future<?>> made = new ArrayList<>();
      int slot = 0;
      for (int i = 0; i < REPOS; i++) {
        int repo = i;
        int count = PLAN[round][i];
        if (count == 0) {
          continue;
        }
        long delay = slot++ * STAGGER_MS;
        made.add(
            pool.submit(
                () -> {
                  Thread.sleep(delay);
                  for (int k = 0; k < count; k++) {
                    push(repo, "round " + round + " push " + k, pushed.get(repo));
                  }
                  return null;
                }));
      }
      for (Future<?> f : made) {
        f.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("round " + round + ": " + e, e);
    } finally {
      pool.shutdown();
    }
  }

  /**
   * A push to the repository, once the push before it has its checks filed: a pass sees each push,
   * so each gets its check (two pushes one pass saw at once would file only the newer).
   */
  private static void push(int repo, String what, List<String> shas) throws Exception {
    if (!shas.isEmpty()) {
      String before = shas.get(shas.size() - 1);
      Checks.await(
          Duration.ofSeconds(120),
          "the checks of " + before + " filed",
          () -> filed(before) == workflows(repo).size());
    }
    OwnerRepo o = owners.get(repo);
    o.commit(Map.of("what", what + " to " + o.key()));
    String sha = o.push("main");
    synchronized (shas) {
      shas.add(sha);
    }
  }

  /** Waits until runs are filed running, to restart {@code target} amid; returns how many. */
  private static long awaitInFlight(ServiceProcess target) throws Exception {
    long[] running = new long[1];
    Checks.await(
        Duration.ofSeconds(120),
        "runs going to restart " + target + " amid",
        () -> {
          running[0] =
              Checks.all(shape).stream()
                  .filter(r -> CheckRecord.fromJson(r.value()).status() == CheckStatus.RUNNING)
                  .count();
          return running[0] > 0;
        });
    return running[0];
  }

  /** How many checks of {@code sha} the runner's account holds; read at most twice a second. */
  private static synchronized int filed(String sha) throws Exception {
    if (System.nanoTime() - seenAt > 500_000_000L) {
      List<CheckRecord> now = new ArrayList<>();
      for (Record r : Checks.all(shape)) {
        now.add(CheckRecord.fromJson(r.value()));
      }
      seen = now;
      seenAt = System.nanoTime();
    }
    return (int) seen.stream().filter(c -> c.commit().equals(sha)).count();
  }

  private static List<String> workflows(int repo) {
    return repo == 0 ? List.of("ci", "deploy") : List.of("ci");
  }

  /**
   * The log holds the step's header and the lines its run printed, each once and in order: all of
   * them when it passed, a first part when a newer push cancelled it running, none when it was
   * cancelled waiting.
   */
  private static void assertWholeLog(CheckRecord c) throws Exception {
    if (c.log() == null) {
      assertEquals(CheckStatus.CANCELLED, c.status(), "no log: " + c);
      return;
    }
    String log = Checks.log(shape, c);
    List<String> lines = new ArrayList<>();
    for (String line : log.split("\n")) {
      if (line.endsWith(" of the run")) {
        lines.add(line);
      }
    }
    List<String> want = new ArrayList<>();
    for (int i = 1; i <= lines.size(); i++) {
      want.add("line " + i + " of the run");
    }
    assertEquals(want, lines, "the lines of " + c + " in its log:\n" + log);
    if (c.status() == CheckStatus.SUCCESS) {
      assertEquals(LINES, lines.size(), "a passing run's log holds every line: " + c);
      assertTrue(log.contains("==> count\nline 1 of the run\n"), log);
    }
  }

  private static double passes(ServiceProcess reconciler) {
    try {
      return Checks.passes(reconciler);
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
