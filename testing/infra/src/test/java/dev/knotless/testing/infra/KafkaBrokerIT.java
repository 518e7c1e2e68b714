package dev.knotless.testing.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaBrokerIT {
  @Test
  void aMessageSentBeforeARestartIsStillThereAfterIt() throws Exception {
    try (KafkaBroker broker = KafkaBroker.start()) {
      System.out.printf("broker ready in %d ms%n", broker.lastReadyMillis());
      long firstPid = broker.pid();
      send(broker, "knotless.test", "did:plc:a/repo", "before");

      broker.restart();
      System.out.printf("broker ready again in %d ms%n", broker.lastReadyMillis());
      assertTrue(broker.pid() > 0);
      assertFalse(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false));
      send(broker, "knotless.test", "did:plc:a/repo", "after");

      assertEquals(List.of("before", "after"), readAll(broker, "knotless.test", 2));
    }
  }

  @Test
  void closingTheBrokerEndsItsProcess() throws Exception {
    KafkaBroker broker = KafkaBroker.start();
    long pid = broker.pid();
    broker.close();
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
  }

  private static void send(KafkaBroker broker, String topic, String key, String value)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    }
  }

  private static List<String> readAll(KafkaBroker broker, String topic, int count) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("group.id", "it-" + System.nanoTime());
    p.put("auto.offset.reset", "earliest");
    List<String> seen = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (var consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (seen.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          seen.add(r.value());
        }
      }
    }
    return seen;
  }
}
