package dev.knotless.testing.distributed;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.Topics;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** A sweep rung by hand: one {@code sweep} doorbell a repository, as the ingester's sweep sends. */
public final class SweepRings {
  private SweepRings() {}

  /** Publishes a {@code sweep} doorbell for each of {@code repoKeys}, all of {@code ownerDid}. */
  public static void ring(LocalDistributed shape, String ownerDid, List<String> repoKeys) {
    Properties p = new Properties();
    p.put("bootstrap.servers", shape.broker().bootstrapServers());
    p.putAll(shape.broker().clientSettings("admin"));
    p.put("linger.ms", "5");
    String value = DoorbellMessage.encode(Doorbell.SWEEP);
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (String key : repoKeys) {
        producer.send(
            new ProducerRecord<>(Topics.DOORBELLS, new RepoId(ownerDid, key).toString(), value));
      }
      producer.flush();
    }
  }
}
