package dev.knotless.testing.distributed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.testing.infra.KafkaBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The doorbell topic read from its start, as the broker's admin and in no consumer group, so the
 * services' own reading is untouched: each doorbell with its key and when the ingester made it.
 */
final class DoorbellLog implements AutoCloseable {
  static final String TOPIC = "knotless.doorbells";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One doorbell as it lies on the topic.
   *
   * @param key the repository, {@code <owner did>/<repo key>}
   * @param reason {@code frame}, {@code connect}, {@code sweep}, ...
   * @param detail a frame's collection, a connect's source; empty for the others
   * @param madeAtMillis the record's timestamp: when its producer sent it
   */
  record Bell(String key, String reason, String detail, long madeAtMillis) {
    boolean frameOf(String repo, String collection) {
      return key.equals(repo) && reason.equals("frame") && detail.equals(collection);
    }
  }

  private final KafkaConsumer<String, String> consumer;
  private final List<Bell> seen = new ArrayList<>();

  /** Waits up to {@code max} for the topic, which the first service to use it makes. */
  DoorbellLog(KafkaBroker broker, Duration max) throws Exception {
    Properties props = new Properties();
    props.putAll(broker.clientSettings("admin"));
    props.put("bootstrap.servers", broker.bootstrapServers());
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", StringDeserializer.class.getName());
    props.put("enable.auto.commit", "false");
    consumer = new KafkaConsumer<>(props);
    List<List<PartitionInfo>> found = new ArrayList<>();
    Checks.await(
        max,
        "the topic " + TOPIC,
        () -> {
          found.clear();
          List<PartitionInfo> p = consumer.listTopics().get(TOPIC);
          if (p != null && !p.isEmpty()) {
            found.add(p);
          }
          return !found.isEmpty();
        });
    List<TopicPartition> all = new ArrayList<>();
    found.get(0).forEach(p -> all.add(new TopicPartition(p.topic(), p.partition())));
    consumer.assign(all);
    consumer.seekToBeginning(all);
  }

  /** Reads on until {@code done} holds for every doorbell read so far; fails after {@code max}. */
  List<Bell> until(Duration max, String what, Predicate<List<Bell>> done) throws IOException {
    long end = System.nanoTime() + max.toNanos();
    while (!done.test(seen)) {
      if (System.nanoTime() > end) {
        throw new AssertionError("no " + what + " within " + max + "; read " + seen);
      }
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        JsonNode v = JSON.readTree(r.value());
        seen.add(
            new Bell(r.key(), v.path("reason").asText(), v.path("detail").asText(), r.timestamp()));
      }
    }
    return List.copyOf(seen);
  }

  @Override
  public void close() {
    consumer.close();
  }
}
