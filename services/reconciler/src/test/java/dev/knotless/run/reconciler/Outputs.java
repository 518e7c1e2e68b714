package dev.knotless.run.reconciler;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.run.events.Topics;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * What the reconciler under test is given and gives back, on the real parts: doorbells published on
 * the broker, the checks it files in the runner's account, the run events it publishes.
 */
final class Outputs {
  private Outputs() {}

  /** Publishes {@code bell} for {@code repo} on the doorbells topic, as the ingester does. */
  static void ring(RepoId repo, Doorbell bell) throws Exception {
    Properties p = new Properties();
    KafkaBrokerResource.testClient(p);
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer
          .send(
              new ProducerRecord<>(Topics.DOORBELLS, repo.toString(), DoorbellMessage.encode(bell)))
          .get();
    }
  }

  /** The checks filed in the runner account's repository, by the PDS the reconciler reads. */
  static List<Record> checks(String runnerDid) throws IOException {
    String pds = ConfigProvider.getConfig().getValue("knotless.reconciler.pds", String.class);
    return XrpcClient.create(URI.create(pds))
        .listRecords(runnerDid, CheckRecord.COLLECTION, 100, null, false)
        .records();
  }

  /** The first run event of the check with record key {@code key}, from the topic. */
  static RunEvent firstEvent(String key, Duration deadline) {
    Properties p = new Properties();
    KafkaBrokerResource.testClient(p);
    p.put("group.id", "reconciler-it-" + System.nanoTime());
    p.put("auto.offset.reset", "earliest");
    try (var consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(Topics.RUN_EVENTS));
      long end = System.nanoTime() + deadline.toNanos();
      while (System.nanoTime() < end) {
        for (var r : consumer.poll(Duration.ofMillis(500))) {
          if (key.equals(r.key())) {
            return RunEventJson.decode(r.value());
          }
        }
      }
    }
    throw new AssertionError("no event of " + key + " in time");
  }
}
