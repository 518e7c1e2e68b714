package dev.knotless.run.ingester;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.Topics;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.runner.doorbell.Doorbell;
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

/** Reads the doorbell topic from its start with a plain consumer, as any other service would. */
final class DoorbellTopic implements AutoCloseable {
  /** One doorbell as it lies on the topic. */
  record Bell(String key, Doorbell reason) {}

  private final KafkaConsumer<String, String> consumer;
  private final List<Bell> seen = new ArrayList<>();

  DoorbellTopic(String bootstrap, Duration deadline) {
    Properties props = new Properties();
    KafkaBrokerResource.testClient(props);
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", StringDeserializer.class.getName());
    props.put("enable.auto.commit", "false");
    consumer = new KafkaConsumer<>(props);
    long end = System.nanoTime() + deadline.toNanos();
    List<PartitionInfo> partitions = consumer.partitionsFor(Topics.DOORBELLS);
    while ((partitions == null || partitions.isEmpty()) && System.nanoTime() < end) {
      partitions = consumer.partitionsFor(Topics.DOORBELLS);
    }
    if (partitions == null || partitions.isEmpty()) {
      throw new AssertionError("topic " + Topics.DOORBELLS + " never appeared");
    }
    List<TopicPartition> assigned = new ArrayList<>();
    partitions.forEach(p -> assigned.add(new TopicPartition(p.topic(), p.partition())));
    consumer.assign(assigned);
    consumer.seekToBeginning(assigned);
  }

  /** Polls until {@code done} holds for everything read so far, or fails at the deadline. */
  List<Bell> until(Duration deadline, String what, Predicate<List<Bell>> done) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!done.test(seen)) {
      if (System.nanoTime() > end) {
        throw new AssertionError("no " + what + " within " + deadline + "; read " + seen);
      }
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        seen.add(new Bell(r.key(), DoorbellMessage.decode(r.value())));
      }
    }
    return List.copyOf(seen);
  }

  @Override
  public void close() {
    consumer.close();
  }
}
