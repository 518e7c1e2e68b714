package dev.knotless.runner.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.runner.workflow.Superseded;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Random arrivals, finishes and cancels against the invariants that keep runs from waiting on each
 * other: caps hold, a run holding a job has all it needs, a free job never sits idle beside a run
 * that could use it, MAIN is never passed over for a free job, at most one deploy waits per turn,
 * and everything waiting eventually runs.
 */
class SchedulerPropertyTest {

  private static final int ITERATIONS = 100;
  private static final int STEPS = 200;

  @Test
  void noRunHoldsOneThingWhileWaitingForAnotherAndNothingDeadlocksUnderRandomArrivals() {
    for (int iteration = 0; iteration < ITERATIONS; iteration++) {
      long seed = 7919L * iteration + 17;
      try {
        new Trial(new Random(seed)).play();
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private static final class Trial {
    final Random random;
    final SchedulerConfig config;
    final UsageLedger usage = new UsageLedger();
    final Scheduler scheduler;
    final Instant now = Instant.parse("2026-11-29T12:00:00Z");
    final Map<String, RunRequest> admitted = new LinkedHashMap<>(); // holding a job
    final Set<String> endedHoldingTurn = new HashSet<>();
    final Map<String, Integer> revisions = new HashMap<>();
    int next;

    Trial(Random random) {
      this.random = random;
      int jobs = 1 + random.nextInt(6);
      SchedulerConfig c =
          SchedulerConfig.defaults(jobs, "did:plc:runner")
              .withCaps(1 + random.nextInt(jobs), 1 + random.nextInt(jobs));
      if (random.nextBoolean()) {
        c = c.withAllowances(random.nextInt(30), random.nextInt(30), Set.of("did:plc:o0"));
      }
      this.config = c;
      this.scheduler = new Scheduler(config, usage);
    }

    void play() {
      for (int step = 0; step < STEPS; step++) {
        int action = random.nextInt(10);
        if (action < 5) {
          submit();
        } else if (action < 8) {
          finishOne();
        } else if (action < 9) {
          fileOne();
        } else {
          cancelOne();
        }
        admitAndCheck();
      }
      drain();
    }

    void submit() {
      String owner = "did:plc:o" + random.nextInt(5);
      String repo = owner + "/r" + random.nextInt(2);
      boolean pull = random.nextInt(3) == 0;
      String subject =
          pull ? "at://" + repo + "/pull/" + random.nextInt(3) : "refs/heads/b" + random.nextInt(2);
      String workflow = random.nextBoolean() ? "deploy" : "ci";
      String key = repo + " " + subject + " " + workflow;
      RunClass cls = RunClass.values()[random.nextInt(RunClass.values().length)];
      // A run by name comes at the current commit; anything else is a newer one.
      int rev = cls == RunClass.ASKED && revisions.containsKey(key) ? revisions.get(key) : next;
      revisions.put(key, rev);
      RunRequest r =
          new RunRequest(
              "run" + next++,
              owner,
              repo,
              subject,
              pull ? SubjectKind.PULL : SubjectKind.REF,
              workflow,
              "rev" + rev,
              cls,
              workflow.equals("deploy") ? Superseded.FINISH : Superseded.CANCEL,
              random.nextInt(4) == 0);
      for (Decision d : scheduler.submit(r, now)) {
        if (d instanceof Decision.Cancel c && !c.running()) {
          assertTrue(!admitted.containsKey(c.runId()), "a waiting cancel names a waiting run");
          scheduler.fileEnded(c.runId()); // filed cancelled without starting, as the runner does
        }
      }
    }

    void finishOne() {
      if (admitted.isEmpty()) {
        return;
      }
      String id = new ArrayList<>(admitted.keySet()).get(random.nextInt(admitted.size()));
      RunRequest r = admitted.remove(id);
      scheduler.finished(id, random.nextInt(5) * 60_000L, now);
      if (r.needsTurn()) {
        endedHoldingTurn.add(id);
      }
    }

    void fileOne() {
      if (!endedHoldingTurn.isEmpty()) {
        String id = endedHoldingTurn.iterator().next();
        endedHoldingTurn.remove(id);
        scheduler.fileEnded(id);
      }
    }

    void cancelOne() {
      List<WaitingRun> waiting = scheduler.waiting(now);
      if (!waiting.isEmpty()) {
        String id = waiting.get(random.nextInt(waiting.size())).request().runId();
        scheduler.cancel(id, CancelReason.STOP);
        scheduler.fileEnded(id);
      }
    }

    void admitAndCheck() {
      List<Admission> started = scheduler.admit(now);
      for (Admission a : started) {
        admitted.put(a.runId(), a.request());
      }
      int running = scheduler.runningCount();
      assertTrue(running <= config.jobs(), "more runs than --jobs");
      assertEquals(admitted.size(), running, "the scheduler and the caller disagree on jobs");
      Map<String, Integer> perOwner = new HashMap<>();
      int pulls = 0;
      Map<String, Integer> turnHolders = new HashMap<>();
      for (RunRequest r : admitted.values()) {
        perOwner.merge(r.ownerDid(), 1, Integer::sum);
        pulls += r.runClass().sharesPullJobs() ? 1 : 0;
        if (r.needsTurn()) {
          turnHolders.merge(r.workKey().toString(), 1, Integer::sum);
        }
      }
      assertTrue(pulls <= config.pullJobs(), "classes but MAIN hold more than --pull-jobs");
      perOwner.values().forEach(n -> assertTrue(n <= config.ownerJobs(), "past --owner-jobs"));
      turnHolders.values().forEach(n -> assertEquals(1, n, "two deploys of one turn running"));

      List<WaitingRun> waiting = scheduler.waiting(now);
      boolean jobFree = running < config.jobs();
      Map<String, Integer> turnWaiters = new HashMap<>();
      for (WaitingRun w : waiting) {
        if (jobFree && w.reason() == WaitReason.JOB) {
          fail(w.request().runId() + " waits for a job while one is free");
        }
        if (w.reason() == WaitReason.TURN) {
          turnWaiters.merge(w.request().workKey().toString(), 1, Integer::sum);
        }
        boolean mainPassedOver =
            w.request().runClass() == RunClass.MAIN
                && w.reason() == WaitReason.JOB
                && started.stream().anyMatch(a -> a.request().runClass() != RunClass.MAIN);
        assertTrue(!mainPassedOver, "a free job went to a lower class while MAIN waited for one");
      }
      turnWaiters.values().forEach(n -> assertEquals(1, n, "more than one deploy waits"));
    }

    void drain() {
      for (int round = 0; round < 10_000; round++) {
        if (scheduler.waitingCount() == 0 && admitted.isEmpty()) {
          return;
        }
        for (String id : List.copyOf(admitted.keySet())) {
          admitted.remove(id);
          scheduler.finished(id, 0, now);
          scheduler.fileEnded(id);
        }
        for (String id : List.copyOf(endedHoldingTurn)) {
          scheduler.fileEnded(id);
        }
        endedHoldingTurn.clear();
        admitAndCheck();
      }
      fail("runs still waiting after everything ended: " + scheduler.waiting(now));
    }
  }

  @Test
  void theLedgerForgetsDaysPastTheWindow() {
    UsageLedger ledger = new UsageLedger();
    ledger.add("did:plc:a", false, LocalDate.of(2026, 1, 1), 5);
    ledger.add("did:plc:a", false, LocalDate.of(2026, 1, 30), 7);
    assertEquals(12, ledger.usedMillis("did:plc:a", false, LocalDate.of(2026, 1, 30)));
    assertEquals(7, ledger.usedMillis("did:plc:a", false, LocalDate.of(2026, 1, 31)));
  }
}
