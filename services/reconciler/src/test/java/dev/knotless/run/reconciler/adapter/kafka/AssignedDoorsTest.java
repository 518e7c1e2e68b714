package dev.knotless.run.reconciler.adapter.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.RepoId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A doorbell partition moving between two reconcilers, against Kafka's {@link MockConsumer}: what
 * each rings, what the old owner hands back to the log, and when the offset carries the mark that
 * spares the new owner ringing every repository.
 */
class AssignedDoorsTest {
  private static final String TOPIC = "knotless.doorbells";
  private static final int PARTITIONS = 2;
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
  private final Set<RepoId> watched = new HashSet<>();
  private final List<RepoId> handedBack = new ArrayList<>();

  AssignedDoorsTest() {
    Node n = new Node(0, "127.0.0.1", 9092);
    List<PartitionInfo> infos = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      infos.add(new PartitionInfo(TOPIC, p, n, new Node[] {n}, new Node[] {n}));
    }
    consumer.updatePartitions(TOPIC, infos);
    consumer.updateBeginningOffsets(Map.of(P0, 0L, new TopicPartition(TOPIC, 1), 0L));
    // The mock answers committed offsets only for partitions it holds.
    consumer.assign(List.of(P0));
    for (int i = 0; watched.size() < 40; i++) {
      watched.add(RepoId.parse("did:plc:owner/repo" + i));
    }
  }

  @AfterEach
  void stop() {
    timers.shutdownNow();
  }

  /** Repositories whose doorbells land on partition 0. */
  private Set<RepoId> onP0() {
    Set<RepoId> on = new HashSet<>();
    watched.forEach(
        r -> {
          if (AssignedDoors.partitionOf(r.toString(), PARTITIONS) == 0) {
            on.add(r);
          }
        });
    return on;
  }

  /** Doors whose passes run at once ({@code run}) or wait forever (not {@code run}). */
  private Doors doors(boolean run, List<RepoId> passed) {
    Executor passes = run ? Runnable::run : r -> {};
    return new Doors(
        (repo, reasons) -> passed.add(repo), passes, DoorClock.of(timers), Doors.DEFAULT_SWEEP);
  }

  private AssignedDoors listener(Doors doors, Supplier<Set<RepoId>> watching) {
    return new AssignedDoors(
        watching,
        () -> doors,
        repos -> {
          handedBack.addAll(repos);
          return CompletableFuture.completedFuture(null);
        });
  }

  @Test
  void passesOwedAreHandedBackAndTheNextOwnerRingsNothingMore() {
    List<RepoId> passed = new ArrayList<>();
    Doors first = doors(false, passed);
    AssignedDoors old = listener(first, () -> watched);
    old.onPartitionsAssigned(consumer, List.of(P0));
    old.onPartitionsRevoked(consumer, List.of(P0));
    assertEquals(onP0(), new HashSet<>(handedBack), "every pass owed on P0 goes back to the log");
    assertEquals(AssignedDoors.HANDED_OVER, consumer.committed(Set.of(P0)).get(P0).metadata());

    handedBack.clear();
    AssignedDoors next = listener(doors(false, passed), () -> watched);
    next.onPartitionsAssigned(consumer, List.of(P0));
    assertEquals(AssignedDoors.HELD, consumer.committed(Set.of(P0)).get(P0).metadata());
    assertEquals(Set.of(), rungBy(next), "the new owner waits for the doorbells");
  }

  /**
   * What {@code owner} rang and had not passed: revoking waits for the ringing begun on assignment
   * and hands back every pass owed (the doors' passes never run).
   */
  private Set<RepoId> rungBy(AssignedDoors owner) {
    handedBack.clear();
    owner.onPartitionsRevoked(consumer, List.of(P0));
    return new HashSet<>(handedBack);
  }

  @Test
  void repositoriesAlreadyPassedAreNeitherHandedBackNorRungAgain() {
    List<RepoId> passed = new ArrayList<>();
    AssignedDoors old = listener(doors(true, passed), () -> watched);
    old.onPartitionsAssigned(consumer, List.of(P0));
    old.onPartitionsRevoked(consumer, List.of(P0));
    assertEquals(onP0(), new HashSet<>(passed), "the first owner passed P0's repositories");
    assertEquals(List.of(), handedBack, "nothing was owed");

    AssignedDoors next = listener(doors(false, new ArrayList<>()), () -> watched);
    next.onPartitionsAssigned(consumer, List.of(P0));
    assertEquals(Set.of(), rungBy(next), "nothing rung again");
  }

  @Test
  void aPrivateRepositoryAlreadyPassedIsHandedBackAllTheSameSoItsNextHolderLearnsItsSpace() {
    List<RepoId> passed = new ArrayList<>();
    RepoId secret = onP0().iterator().next();
    Doors first = doors(true, passed);
    AssignedDoors old =
        new AssignedDoors(
            () -> watched,
            () -> first,
            repos -> {
              handedBack.addAll(repos);
              return CompletableFuture.completedFuture(null);
            },
            secret::equals);
    old.onPartitionsAssigned(consumer, List.of(P0));
    old.onPartitionsRevoked(consumer, List.of(P0));
    assertEquals(onP0(), new HashSet<>(passed), "the first owner passed P0's repositories");
    assertEquals(List.of(secret), handedBack, "only the one read in a space, though none was owed");
    assertEquals(AssignedDoors.HANDED_OVER, consumer.committed(Set.of(P0)).get(P0).metadata());
  }

  @Test
  void anOwnerGivenOnlyHandedOverPartitionsStillWiresItsPass() throws Exception {
    AssignedDoors old = listener(doors(true, new ArrayList<>()), () -> watched);
    old.onPartitionsAssigned(consumer, List.of(P0));
    old.onPartitionsRevoked(consumer, List.of(P0));
    assertEquals(AssignedDoors.HANDED_OVER, consumer.committed(Set.of(P0)).get(P0).metadata());

    java.util.concurrent.CountDownLatch wired = new java.util.concurrent.CountDownLatch(1);
    AssignedDoors next =
        new AssignedDoors(
            () -> watched,
            () -> doors(false, new ArrayList<>()),
            repos -> CompletableFuture.completedFuture(null),
            id -> false,
            wired::countDown);
    next.onPartitionsAssigned(consumer, List.of(P0));
    assertTrue(
        wired.await(10, java.util.concurrent.TimeUnit.SECONDS),
        "the pass (and its discovery, invites and spaces' poll) wired with no door to ring");
  }

  @Test
  void aPartitionWhoseDoorsWereNotAllRungIsNotMarkedAndItsNextOwnerRingsThemAll() {
    AssignedDoors old =
        listener(
            doors(false, new ArrayList<>()),
            () -> {
              throw new IllegalStateException("the database is down");
            });
    old.onPartitionsAssigned(consumer, List.of(P0));
    old.onPartitionsRevoked(consumer, List.of(P0));
    assertTrue(handedBack.isEmpty());
    var c = consumer.committed(Set.of(P0)).get(P0);
    assertTrue(c == null || !AssignedDoors.HANDED_OVER.equals(c.metadata()), "no mark: " + c);

    assertNextOwnerRingsEveryRepositoryOnP0();
  }

  @Test
  void aPartitionLostWithoutAHandOverIsRungWholeByItsNextOwner() {
    AssignedDoors old = listener(doors(false, new ArrayList<>()), () -> watched);
    old.onPartitionsAssigned(consumer, List.of(P0));
    // Its last hand-over's mark was taken off when it was given P0.
    consumer.commitSync(
        Map.of(P0, new org.apache.kafka.clients.consumer.OffsetAndMetadata(0, AssignedDoors.HELD)));
    old.onPartitionsLost(consumer, List.of(P0));
    assertTrue(handedBack.isEmpty(), "a lost partition can hand nothing back");
    assertNotEquals(AssignedDoors.HANDED_OVER, consumer.committed(Set.of(P0)).get(P0).metadata());

    assertNextOwnerRingsEveryRepositoryOnP0();
  }

  private void assertNextOwnerRingsEveryRepositoryOnP0() {
    AssignedDoors owner = listener(doors(false, new ArrayList<>()), () -> watched);
    owner.onPartitionsAssigned(consumer, List.of(P0));
    assertEquals(onP0(), rungBy(owner), "every repository on P0 was rung");
  }
}
