package dev.knotless.testing.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The broker with SASL and the services' ACLs: a forger without credentials, or with another
 * service's, cannot write a run event, while the services write and read what they must.
 */
class KafkaAclsIT {
  private static KafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = KafkaBroker.startAuthenticated();
  }

  @AfterAll
  static void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  private static KafkaProducer<String, String> producer(Map<String, String> auth) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("max.block.ms", "5000");
    p.put("delivery.timeout.ms", "8000");
    p.put("request.timeout.ms", "4000");
    p.putAll(auth);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  private static void send(Map<String, String> auth, String topic, String value) throws Exception {
    try (KafkaProducer<String, String> p = producer(auth)) {
      p.send(new ProducerRecord<>(topic, "did:plc:x/key", value)).get();
    }
  }

  @Test
  void aProducerWithoutCredentialsCannotWriteARunEvent() {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> send(Map.of(), "knotless.run-events", "{\"status\":\"success\"}"));
    // The SASL listener drops a client that does not authenticate: its metadata never comes.
    assertTrue(
        String.valueOf(e.getCause().getMessage()).contains("not present in metadata"),
        String.valueOf(e.getCause()));
  }

  @Test
  void eachServiceWritesOnlyItsOwnTopics() throws Exception {
    send(broker.clientSettings("reconciler"), "knotless.run-events", "{\"v\":\"1.0\"}");
    send(broker.clientSettings("scheduler"), "knotless.run-events", "{\"v\":\"1.0\"}");
    send(broker.clientSettings("ingester"), "knotless.doorbells", "ring");

    // The ingester's credentials forging a success, the reconciler's writing a dead letter.
    for (var forged :
        List.of(
            Map.entry("ingester", "knotless.run-events"),
            Map.entry("reconciler", "knotless.run-events.dead"),
            Map.entry("check-writer", "knotless.run-events"))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> send(broker.clientSettings(forged.getKey()), forged.getValue(), "forged"),
              forged.toString());
      assertInstanceOf(TopicAuthorizationException.class, e.getCause(), forged.toString());
      assertTrue(e.getCause().getMessage().contains(forged.getValue()), e.getCause().getMessage());
    }
  }

  @Test
  void theCheckWriterReadsRunEventsAndNoOtherServiceDoes() throws Exception {
    send(broker.clientSettings("reconciler"), "knotless.run-events", "{\"v\":\"1.0\"}");
    assertEquals(1, read("check-writer").count() > 0 ? 1 : 0);
    KafkaConsumer<String, String> other = consumer("ingester");
    try (other) {
      assertThrows(TopicAuthorizationException.class, () -> other.poll(Duration.ofSeconds(10)));
    }
  }

  private static ConsumerRecords<String, String> read(String user) {
    try (KafkaConsumer<String, String> c = consumer(user)) {
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < until) {
        ConsumerRecords<String, String> r = c.poll(Duration.ofSeconds(1));
        if (!r.isEmpty()) {
          return r;
        }
      }
      return ConsumerRecords.empty();
    }
  }

  private static KafkaConsumer<String, String> consumer(String user) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("group.id", "acl-test-" + user);
    p.put("auto.offset.reset", "earliest");
    p.putAll(broker.clientSettings(user));
    KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    c.subscribe(List.of("knotless.run-events"));
    return c;
  }
}
