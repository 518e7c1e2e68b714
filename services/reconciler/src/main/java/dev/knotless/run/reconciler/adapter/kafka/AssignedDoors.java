package dev.knotless.run.reconciler.adapter.kafka;

import dev.knotless.run.reconciler.app.PassWiring;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.RepoId;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Provider;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.jboss.logging.Logger;

/**
 * Rings the door of every watched repository whose doorbell partition this reconciler has just been
 * given. Doorbells are committed as they are taken, before their pass ends, so a reconciler that
 * died mid-pass leaves rings no one will read again: the one taking its partitions looks at each of
 * their repositories at once, as the all-in-one runner does when it starts, instead of waiting for
 * the sweep. Duplicates are harmless: the doors fold them into one pass.
 */
@ApplicationScoped
@Identifier("doorbells-rebalance")
public class AssignedDoors implements KafkaConsumerRebalanceListener {
  private static final Logger LOG = Logger.getLogger(AssignedDoors.class);

  private final Provider<PassWiring.WiredPass> wired;
  private final Provider<Doors> doors;

  /** The doorbell partitions this reconciler holds now. */
  private final Set<Integer> owned = ConcurrentHashMap.newKeySet();

  /** How many doorbell partitions there are, once any was given (0 before). */
  private volatile int partitions;

  private final ExecutorService ringer =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "assigned-doors"));

  public AssignedDoors(Provider<PassWiring.WiredPass> wired, Provider<Doors> doors) {
    this.wired = wired;
    this.doors = doors;
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
    Set<Integer> mine = new HashSet<>();
    String topic = null;
    for (TopicPartition tp : assigned) {
      mine.add(tp.partition());
      topic = tp.topic();
    }
    int partitions = consumer.partitionsFor(topic).size();
    this.partitions = partitions;
    owned.addAll(mine);
    // Any pass begun after the partitions were given answers what was left on them: a connect
    // ring the ingester made before that pass began is then answered by it too (Doors).
    long givenAt = System.currentTimeMillis();
    // Off the polling thread: the first call logs in and reads the watched repositories.
    ringer.execute(
        () -> {
          try {
            int rung = 0;
            for (RepoId repo : wired.get().watching().ids()) {
              int p = partitionOf(repo.toString(), partitions);
              // A partition taken away meanwhile is its new owner's to ring.
              if (mine.contains(p) && owned.contains(p)) {
                doors.get().open(repo);
                doors.get().ring(repo, Doorbell.connect("kafka"), givenAt);
                rung++;
              }
            }
            LOG.infof("Given doorbell partitions %s: rang %d doors", mine, rung);
          } catch (RuntimeException e) {
            LOG.warnf("Given doorbell partitions %s, rang none: %s", mine, e.getMessage());
          }
        });
  }

  /**
   * Partitions taken away: the passes their repositories are owed and have not begun are dropped,
   * since the reconciler given them rings every one. Two reconcilers starting together would
   * otherwise each pass the repositories the first was given and then lost.
   */
  @Override
  public void onPartitionsRevoked(Consumer<?, ?> consumer, Collection<TopicPartition> revoked) {
    if (revoked.isEmpty()) {
      return;
    }
    Set<Integer> gone = new HashSet<>();
    String topic = null;
    for (TopicPartition tp : revoked) {
      gone.add(tp.partition());
      topic = tp.topic();
    }
    owned.removeAll(gone);
    int partitions = consumer.partitionsFor(topic).size();
    ringer.execute(
        () -> {
          try {
            int dropped = 0;
            for (RepoId repo : doors.get().doors()) {
              int p = partitionOf(repo.toString(), partitions);
              if (gone.contains(p) && !owned.contains(p) && doors.get().forgo(repo)) {
                dropped++;
              }
            }
            LOG.infof("Doorbell partitions %s taken away: %d passes owed dropped", gone, dropped);
          } catch (RuntimeException e) {
            LOG.warnf("Doorbell partitions %s taken away: %s", gone, e.getMessage());
          }
        });
  }

  @Override
  public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> lost) {
    onPartitionsRevoked(consumer, lost);
  }

  @PreDestroy
  void stop() {
    ringer.shutdownNow();
  }
}
