package dev.knotless.runner.doorbell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DoorsTest {
  private static final RepoId APP = new RepoId("did:plc:alice", "3kapp2222222a");
  private static final RepoId LIB = new RepoId("did:plc:alice", "3klib2222222a");
  private static final RepoId OTHER = new RepoId("did:plc:bob", "3kother22222a");

  private final FakeClock clock = new FakeClock();
  private final List<Pass> passes = new ArrayList<>();

  private record Pass(RepoId repo, Set<Doorbell> reasons, long atNanos) {}

  private Doors doors(Duration sweep, PassRunner inside) {
    return new Doors(
        (repo, reasons) -> {
          passes.add(new Pass(repo, reasons, clock.nanoTime()));
          inside.run(repo, reasons);
        },
        clock,
        clock,
        sweep);
  }

  @Test
  void aRingStartsOnePassWithItsReason() {
    Doors doors = doors(Doors.DEFAULT_SWEEP, (repo, reasons) -> {});
    doors.open(APP);

    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
    assertTrue(doors.busy(APP), "the pass is handed to the executor at once");
    clock.runReady();

    assertEquals(List.of(new Pass(APP, Set.of(Doorbell.frame(DoorMatcher.REF)), 0)), passes);
    assertFalse(doors.busy(APP));
  }

  @Test
  void aPassForgoneBeforeItBeginsIsNotMadeAndALaterRingIsAnsweredAsUsual() {
    Doors doors = doors(Doors.DEFAULT_SWEEP, (repo, reasons) -> {});
    doors.open(APP);
    doors.open(LIB);
    doors.ring(APP, Doorbell.connect("kafka"));
    doors.ring(LIB, Doorbell.connect("kafka"));

    assertTrue(doors.forgo(APP), "a pass was owed");
    assertEquals(1, doors.backlog().waiting(), "only LIB's pass is owed now");
    clock.runReady();
    assertEquals(List.of(LIB), passes.stream().map(Pass::repo).toList(), "APP was not passed");
    assertFalse(doors.busy(APP));
    assertFalse(doors.forgo(APP), "nothing owed any more");

    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
    clock.runReady();
    assertEquals(List.of(LIB, APP), passes.stream().map(Pass::repo).toList());
  }

  @Test
  void aFailedPassWaitingForItsRetryCountsAsOwedWhenForgone() {
    Doors doors =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              throw new IOException("PDS answered 502");
            });
    doors.open(APP);
    doors.ring(APP, Doorbell.connect("kafka"));
    clock.runReady();
    assertEquals(1, passes.size());

    // The retry is owed: whoever takes the partition must pass APP again (AssignedDoors).
    assertTrue(doors.forgo(APP), "the retry was owed");
    clock.advance(Duration.ofMinutes(2));
    assertEquals(1, passes.size(), "the retry was dropped with the partition");
    assertFalse(doors.forgo(APP), "nothing owed any more");
  }

  @Test
  void aRingAfterAForgoBeforeThePassBeganStillGetsThatPass() {
    Doors doors = doors(Doors.DEFAULT_SWEEP, (repo, reasons) -> {});
    doors.open(APP);
    doors.ring(APP, Doorbell.connect("kafka"));
    doors.forgo(APP);
    // The partition came back before the pass began: its new ring keeps the pass.
    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
    clock.runReady();
    assertEquals(1, passes.size(), passes.toString());
    assertTrue(passes.get(0).reasons().contains(Doorbell.frame(DoorMatcher.REF)));
  }

  @Test
  void manyRingsDuringAPassGiveExactlyOneMorePassWithAllTheirReasons() {
    List<Doorbell> duringFirst =
        List.of(
            Doorbell.frame(DoorMatcher.REF),
            Doorbell.frame(DoorMatcher.REF),
            Doorbell.frame(DoorMatcher.RERUN),
            Doorbell.SWEEP,
            Doorbell.connect("jetstream"),
            Doorbell.frame(DoorMatcher.REF));
    Doors[] holder = new Doors[1];
    holder[0] =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              if (passes.size() == 1) {
                duringFirst.forEach(reason -> holder[0].ring(APP, reason));
              }
            });
    holder[0].open(APP);

    holder[0].ring(APP, Doorbell.ASKED);
    clock.runReady();

    assertEquals(2, passes.size(), "one pass, then exactly one more: " + passes);
    assertEquals(Set.of(Doorbell.ASKED), passes.get(0).reasons());
    assertEquals(
        Set.of(
            Doorbell.frame(DoorMatcher.REF),
            Doorbell.frame(DoorMatcher.RERUN),
            Doorbell.SWEEP,
            Doorbell.connect("jetstream")),
        passes.get(1).reasons());
    assertEquals(0, clock.readyCount());
    assertFalse(holder[0].busy(APP));
  }

  @Test
  void ringsBeforeAQueuedPassBeginsAreAnsweredByIt() {
    // A start rings every door, and the firehose's connection rings them all again while most
    // passes still wait for a thread: each repository is passed once, not twice.
    Doors doors = doors(Doors.DEFAULT_SWEEP, (repo, reasons) -> {});
    doors.open(APP);
    doors.open(LIB);

    doors.ringAll(Doorbell.connect("start"));
    doors.ringAll(Doorbell.connect("firehose"));
    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
    clock.runReady();

    assertEquals(2, passes.size(), "one pass a repository: " + passes);
    Set<Doorbell> start = Set.of(Doorbell.connect("start"), Doorbell.connect("firehose"));
    assertEquals(start, reasonsOf(LIB));
    Set<Doorbell> app = new java.util.HashSet<>(start);
    app.add(Doorbell.frame(DoorMatcher.REF));
    assertEquals(app, reasonsOf(APP), "a frame rung before it began is among its reasons");
  }

  private Set<Doorbell> reasonsOf(RepoId repo) {
    return passes.stream().filter(p -> p.repo().equals(repo)).findFirst().orElseThrow().reasons();
  }

  @Test
  void aStartThatRingsEveryDoorFromTwoPlacesPassesEachRepositoryOnce() {
    // The reconciler rings its partitions' doors as it is given them; the ingester's connect ring,
    // made before that pass began, arrives off the topic while it runs.
    long given = clock.wallMillis();
    clock.advance(Duration.ofSeconds(3));
    Doors[] holder = new Doors[1];
    holder[0] =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              if (passes.size() == 1) {
                holder[0].ring(APP, Doorbell.connect("jetstream"), given + 1_000);
              }
            });
    holder[0].open(APP);
    holder[0].ring(APP, Doorbell.connect("kafka"), given);
    clock.runReady();
    // And once it ended: a sweep ring made before it began, read late, is answered too.
    holder[0].ring(APP, Doorbell.SWEEP, given + 2_000);
    clock.runReady();

    assertEquals(1, passes.size(), "one pass answers both rings: " + passes);
  }

  @Test
  void aConnectRingMadeAfterThePassBeganOrAFrameRingStillGivesOneMorePass() {
    Doors[] holder = new Doors[1];
    holder[0] =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              if (passes.size() == 1) {
                holder[0].ring(APP, Doorbell.connect("jetstream"), clock.wallMillis() + 1);
              }
              if (repo.equals(LIB) && passes.size() == 3) {
                // During LIB's own pass: a frame, however old its ring, is looked at again.
                holder[0].ring(LIB, Doorbell.frame(DoorMatcher.REF), 0);
              }
            });
    holder[0].open(APP);
    holder[0].open(LIB);
    holder[0].ring(APP, Doorbell.connect("kafka"), clock.wallMillis());
    holder[0].ring(LIB, Doorbell.SWEEP, clock.wallMillis());
    clock.runReady();

    assertEquals(
        List.of(APP, APP, LIB, LIB),
        passes.stream().map(Pass::repo).toList(),
        "what may have changed since a pass began is looked at again: " + passes);
  }

  @Test
  void theBacklogCountsRepositoriesWhosePassIsDueAndNotBegunAndHowLongTheOldestWaited() {
    Doors[] holder = new Doors[1];
    List<Doors.Backlog> duringFirst = new ArrayList<>();
    holder[0] =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              if (passes.size() == 1) {
                duringFirst.add(holder[0].backlog());
                holder[0].ring(APP, Doorbell.frame(DoorMatcher.REF));
                duringFirst.add(holder[0].backlog());
              }
            });
    holder[0].open(APP);
    holder[0].open(LIB);
    holder[0].ring(APP, Doorbell.SWEEP);
    holder[0].ring(LIB, Doorbell.SWEEP);
    assertEquals(2, holder[0].backlog().waiting(), "nothing has begun: both wait");
    clock.runReady();

    assertEquals(
        new Doors.Backlog(1, Duration.ZERO), duringFirst.get(0), "LIB waits for a pass thread");
    assertEquals(2, duringFirst.get(1).waiting(), "APP rung again during its pass is owed one");
    assertEquals(new Doors.Backlog(0, Duration.ZERO), holder[0].backlog(), "all drained");
  }

  @Test
  void ringsFromOtherThreadsDuringAPassCoalesceIntoOneMorePass() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    List<Set<Doorbell>> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try (Doors doors =
        new Doors(
            (repo, reasons) -> {
              seen.add(reasons);
              if (seen.size() == 1) {
                firstStarted.countDown();
                assertTrue(releaseFirst.await(10, TimeUnit.SECONDS));
              }
            },
            pool,
            DoorClock.of(timers),
            Doors.DEFAULT_SWEEP)) {
      doors.open(APP);
      doors.ring(APP, Doorbell.ASKED);
      assertTrue(firstStarted.await(10, TimeUnit.SECONDS));

      Thread[] ringers = new Thread[8];
      for (int i = 0; i < ringers.length; i++) {
        ringers[i] =
            new Thread(
                () -> {
                  for (int n = 0; n < 100; n++) {
                    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
                  }
                });
        ringers[i].start();
      }
      for (Thread ringer : ringers) {
        ringer.join();
      }
      releaseFirst.countDown();

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while ((seen.size() < 2 || doors.busy(APP)) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertFalse(doors.busy(APP), "passes should have ended");
      assertEquals(List.of(Set.of(Doorbell.ASKED), Set.of(Doorbell.frame(DoorMatcher.REF))), seen);
    } finally {
      pool.shutdownNow();
      timers.shutdownNow();
    }
  }

  @Test
  void aFailedPassRingsItsOwnDoorAgainAfterSixtySeconds() {
    Doors doors =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              if (passes.size() == 1) {
                throw new IOException("PDS answered 502");
              }
            });
    doors.open(APP);
    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
    clock.runReady();
    assertEquals(1, passes.size());

    clock.advance(Duration.ofSeconds(59));
    assertEquals(1, passes.size(), "no retry before 60 s");

    clock.advance(Duration.ofSeconds(1));
    assertEquals(2, passes.size());
    assertEquals(
        new Pass(APP, Set.of(Doorbell.RETRY), Duration.ofSeconds(60).toNanos()), passes.get(1));

    clock.advance(Duration.ofMinutes(5));
    assertEquals(2, passes.size(), "a pass that succeeded does not retry");
  }

  @Test
  void aShortSweepShortensTheRetryToTheSweep() {
    Doors doors =
        doors(
            Duration.ofSeconds(20),
            (repo, reasons) -> {
              throw new IllegalStateException("repository record changed key");
            });
    doors.open(APP);
    doors.ring(APP, Doorbell.ASKED);
    clock.runReady();

    assertEquals(Duration.ofSeconds(20), doors.retryDelay());
    clock.advance(Duration.ofSeconds(20));
    assertEquals(2, passes.size());
    assertEquals(Set.of(Doorbell.RETRY), passes.get(1).reasons());
    clock.advance(Duration.ofSeconds(20));
    assertEquals(3, passes.size(), "a pass that keeps failing keeps ringing");
    assertEquals(1, clock.pendingTimers(), "one retry waiting, never a pile of them");
  }

  @Test
  void aPassThatSucceedsBeforeTheRetryCallsTheRetryOff() {
    Doors doors =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              if (passes.size() == 1) {
                throw new IOException("timeout");
              }
            });
    doors.open(APP);
    doors.ring(APP, Doorbell.ASKED);
    clock.runReady();
    clock.advance(Duration.ofSeconds(10));
    doors.ring(APP, Doorbell.frame(DoorMatcher.REF));
    clock.runReady();
    assertEquals(2, passes.size());

    clock.advance(Duration.ofSeconds(120));

    assertEquals(2, passes.size(), "the retry was not needed any more: " + passes);
  }

  @Test
  void aSweepRingsEveryDoorEverySweepInterval() {
    Doors doors = doors(Doors.DEFAULT_SWEEP, (repo, reasons) -> {});
    doors.open(APP);
    doors.open(LIB);
    doors.open(OTHER);
    doors.startSweeping();

    clock.advance(Duration.ofSeconds(599));
    assertEquals(List.of(), passes);

    clock.advance(Duration.ofSeconds(1));
    assertEquals(Set.of(APP, LIB, OTHER), repos(passes));
    assertTrue(passes.stream().allMatch(p -> p.reasons().equals(Set.of(Doorbell.SWEEP))));

    clock.advance(Duration.ofSeconds(600));
    assertEquals(6, passes.size(), "every door again after another 600 s");
  }

  @Test
  void aRingForARepositoryWithNoOpenDoorRunsNothing() {
    Doors doors = doors(Doors.DEFAULT_SWEEP, (repo, reasons) -> {});
    doors.open(APP);

    doors.ring(OTHER, Doorbell.frame(DoorMatcher.REF));
    clock.runReady();

    assertEquals(List.of(), passes);
  }

  @Test
  void aClosedDoorNeitherPassesNorRetries() {
    Doors doors =
        doors(
            Doors.DEFAULT_SWEEP,
            (repo, reasons) -> {
              throw new IOException("down");
            });
    doors.open(APP);
    doors.ring(APP, Doorbell.ASKED);
    clock.runReady();
    doors.close(APP);

    clock.advance(Duration.ofMinutes(2));
    doors.ring(APP, Doorbell.ASKED);
    clock.runReady();

    assertEquals(1, passes.size());
    assertEquals(Set.of(), doors.doors());
  }

  @Test
  void aSweepThatIsNotPositiveIsRefusedWithItsValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new Doors((repo, reasons) -> {}, clock, clock, Duration.ZERO));
    assertTrue(e.getMessage().contains("--sweep"), e.getMessage());
  }

  private static Set<RepoId> repos(List<Pass> passes) {
    Set<RepoId> repos = new java.util.HashSet<>();
    passes.forEach(p -> repos.add(p.repo()));
    return repos;
  }
}
