package dev.knotless.run.reconciler.adapter.kafka;

import dev.knotless.run.reconciler.app.PassWiring;
import dev.knotless.run.reconciler.app.RunQueuer;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.RepoId;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.jboss.logging.Logger;

/**
 * What a reconciler does when doorbell partitions move to it or away from it.
 *
 * <p>Doorbells are committed as they are taken, before their pass ends. A partition given up
 * cleanly (a rebalance, a stop) hands its unfinished work back to the log: every repository of it
 * whose pass is owed, waiting for a retry, or running now gets a doorbell on the topic, and only
 * then is the partition's offset committed with {@link #HANDED_OVER} in its metadata. Its next
 * owner, seeing that mark, needs nothing but the partition's doorbells: a repository the previous
 * owner already passed is not passed again. A partition without the mark (the group's first start,
 * or an owner that died or could not hand back) is looked at whole: its new owner rings every
 * watched repository on it, as the all-in-one runner does when it starts. Duplicates are harmless:
 * the doors fold them into one pass. See docs/distributed.md.
 */
@ApplicationScoped
@Identifier("doorbells-rebalance")
public class AssignedDoors implements KafkaConsumerRebalanceListener {
  private static final Logger LOG = Logger.getLogger(AssignedDoors.class);

  /** The offset metadata of a partition whose owner handed its unfinished passes back. */
  public static final String HANDED_OVER = "knotless:handed-over";

  /** The offset metadata a new owner writes over {@link #HANDED_OVER} before it takes the work. */
  static final String HELD = "knotless:held";

  /** The longest a hand-back waits for its doorbells to be taken by Kafka. */
  private static final long HAND_BACK_SECONDS = 30;

  /** Hands passes owed back to the log: completes once Kafka has taken every doorbell. */
  @FunctionalInterface
  interface HandBack {
    CompletableFuture<Void> ring(Collection<RepoId> repos);
  }

  private final Supplier<Set<RepoId>> watched;
  private final Supplier<Doors> doors;
  private final HandBack handBack;
  private final java.util.function.Predicate<RepoId> inSpace;
  private final Runnable wire;

  /** The doorbell partitions this reconciler holds now. */
  private final Set<Integer> owned = ConcurrentHashMap.newKeySet();

  /** Partitions held whose repositories were not all rung: they cannot be handed over cleanly. */
  private final Set<Integer> unrung = ConcurrentHashMap.newKeySet();

  /** How many doorbell partitions there are, once any was given (0 before). */
  private volatile int partitions;

  private final ExecutorService ringer =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "assigned-doors"));

  @Inject
  public AssignedDoors(
      Provider<PassWiring.WiredPass> wired, Provider<Doors> doors, Provider<RunQueuer> queuer) {
    this(
        () -> wired.get().watching().ids(),
        doors::get,
        repos -> queuer.get().ringAll(repos, Doorbell.connect("kafka")),
        id -> wired.get().watching().readPrivate(id),
        wired::get);
  }

  AssignedDoors(Supplier<Set<RepoId>> watched, Supplier<Doors> doors, HandBack handBack) {
    this(watched, doors, handBack, id -> false);
  }

  AssignedDoors(
      Supplier<Set<RepoId>> watched,
      Supplier<Doors> doors,
      HandBack handBack,
      java.util.function.Predicate<RepoId> inSpace) {
    this(watched, doors, handBack, inSpace, () -> {});
  }

  /**
   * As the injected one; {@code inSpace} says which repositories were read in a space here: each is
   * handed back on a hand-over whether or not a pass was owed, since the holder of its partition
   * asks its space what was written and learns the space only by a pass.
   */
  AssignedDoors(
      Supplier<Set<RepoId>> watched,
      Supplier<Doors> doors,
      HandBack handBack,
      java.util.function.Predicate<RepoId> inSpace,
      Runnable wire) {
    this.watched = watched;
    this.doors = doors;
    this.handBack = handBack;
    this.inSpace = inSpace;
    this.wire = wire;
  }

  /** The partition the default partitioner gives a doorbell keyed {@code key}. */
  public static int partitionOf(String key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
  }

  /**
   * Whether this reconciler holds {@code repo}'s doorbell partition now: the one to ask its space
   * what was written, if it is private.
   */
  public boolean holds(RepoId repo) {
    return holds(repo.toString());
  }

  /** Whether this reconciler holds the doorbell partition a message keyed {@code key} lands on. */
  public boolean holds(String key) {
    int n = partitions;
    return n > 0 && owned.contains(partitionOf(key, n));
  }

  @Override
  public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> assigned) {
    if (assigned.isEmpty()) {
      return;
    }
    String topic = assigned.iterator().next().topic();
    int partitions = consumer.partitionsFor(topic).size();
    this.partitions = partitions;
    Set<Integer> whole = new HashSet<>();
    Set<Integer> handed = new HashSet<>();
    try {
      Map<TopicPartition, OffsetAndMetadata> held = new HashMap<>();
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(assigned));
      for (TopicPartition tp : assigned) {
        OffsetAndMetadata c = committed.get(tp);
        if (c != null && HANDED_OVER.equals(c.metadata())) {
          held.put(tp, new OffsetAndMetadata(c.offset(), HELD));
          handed.add(tp.partition());
        } else {
          whole.add(tp.partition());
        }
      }
      // The mark is taken off before any pass: should this reconciler die, the next owner
      // looks at every repository again.
      consumer.commitSync(held);
    } catch (RuntimeException e) {
      LOG.warnf("Given doorbell partitions, their offsets unread: %s", e.getMessage());
      handed.clear();
      assigned.forEach(tp -> whole.add(tp.partition()));
    }
    owned.addAll(whole);
    owned.addAll(handed);
    if (!handed.isEmpty()) {
      LOG.infof("Given doorbell partitions %s handed over: their doorbells only", handed);
    }
    if (whole.isEmpty()) {
      // No door to ring, but the pass is wired all the same, and with it what its timers do
      // beside the doorbells: the discovery sweep, the invites, the spaces' poll.
      ringer.execute(
          () -> {
            try {
              wire.run();
            } catch (RuntimeException e) {
              LOG.warnf("Given doorbell partitions %s, the pass not wired: %s", handed, e);
            }
          });
      return;
    }
    unrung.addAll(whole);
    // Any pass begun after the partitions were given answers what was left on them: a connect
    // ring the ingester made before that pass began is then answered by it too (Doors).
    long givenAt = System.currentTimeMillis();
    // Off the polling thread: the first call logs in and reads the watched repositories.
    ringer.execute(
        () -> {
          try {
            int rung = 0;
            for (RepoId repo : watched.get()) {
              int p = partitionOf(repo.toString(), partitions);
              // A partition taken away meanwhile is its new owner's to ring.
              if (whole.contains(p) && owned.contains(p)) {
                doors.get().open(repo);
                doors.get().ring(repo, Doorbell.connect("kafka"), givenAt);
                rung++;
              }
            }
            unrung.removeAll(whole);
            LOG.infof("Given doorbell partitions %s: rang %d doors", whole, rung);
          } catch (RuntimeException e) {
            LOG.warnf("Given doorbell partitions %s, rang none: %s", whole, e.getMessage());
          }
        });
  }

  /**
   * Partitions given up: the passes their repositories are owed and have not begun are dropped here
   * and handed back to the log, and the partitions' offsets marked {@link #HANDED_OVER}.
   */
  @Override
  public void onPartitionsRevoked(Consumer<?, ?> consumer, Collection<TopicPartition> revoked) {
    if (revoked.isEmpty()) {
      return;
    }
    Set<Integer> gone = new HashSet<>();
    revoked.forEach(tp -> gone.add(tp.partition()));
    int partitions = consumer.partitionsFor(revoked.iterator().next().topic()).size();
    List<RepoId> owed;
    boolean whole;
    try {
      // On the ringer, after any ringing of these partitions still under way.
      owed = ringer.submit(() -> forgo(gone, partitions)).get(60, TimeUnit.SECONDS);
      whole = gone.stream().noneMatch(unrung::contains);
      unrung.removeAll(gone);
    } catch (Exception e) {
      LOG.warnf("Doorbell partitions %s taken away, passes owed unknown: %s", gone, e);
      return;
    }
    if (!whole) {
      LOG.infof("Doorbell partitions %s taken away before every door was rung", gone);
      return;
    }
    try {
      handBack.ring(owed).get(HAND_BACK_SECONDS, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetAndMetadata> mark = new HashMap<>();
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(revoked));
      Map<TopicPartition, Long> first = null;
      for (TopicPartition tp : revoked) {
        OffsetAndMetadata c = committed.get(tp);
        if (c == null) {
          // Nothing committed: the next owner reads the partition from its start anyway.
          first = first != null ? first : consumer.beginningOffsets(revoked);
        }
        long offset = c != null ? c.offset() : first.get(tp);
        mark.put(tp, new OffsetAndMetadata(offset, HANDED_OVER));
      }
      consumer.commitSync(mark);
      LOG.infof(
          "Doorbell partitions %s handed over: %d passes owed handed back", gone, owed.size());
    } catch (Exception e) {
      LOG.warnf("Doorbell partitions %s taken away, not handed over: %s", gone, e);
    }
  }

  /** Partitions lost without a hand-over: their next owner looks at every repository on them. */
  @Override
  public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> lost) {
    if (lost.isEmpty()) {
      return;
    }
    Set<Integer> gone = new HashSet<>();
    lost.forEach(tp -> gone.add(tp.partition()));
    int partitions = consumer.partitionsFor(lost.iterator().next().topic()).size();
    ringer.execute(() -> forgo(gone, partitions));
  }

  /**
   * Stops holding {@code gone} and drops the passes its repositories are owed here.
   *
   * @return the repositories whose pass was owed, waiting for a retry, or running
   */
  private List<RepoId> forgo(Set<Integer> gone, int partitions) {
    owned.removeAll(gone);
    List<RepoId> owed = new ArrayList<>();
    for (RepoId repo : doors.get().doors()) {
      int p = partitionOf(repo.toString(), partitions);
      if (gone.contains(p) && !owned.contains(p)) {
        // A pass running may fail: handed back too. One that fails after these looks retries here.
        boolean owedHere = doors.get().forgo(repo) || doors.get().busy(repo);
        if (owedHere || inSpace.test(repo)) {
          owed.add(repo);
        }
      }
    }
    LOG.infof("Doorbell partitions %s taken away: %d passes owed dropped", gone, owed.size());
    return owed;
  }

  @PreDestroy
  void stop() {
    ringer.shutdownNow();
  }
}
