package dev.knotless.run.checkwriter.adapter.kafka;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.runner.doorbell.Doorbell;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Rings a repository's door on the doorbell topic once a check whose ending its pass must read is
 * filed ended ({@link dev.knotless.runner.mergequeue.EndedRings}): the reconciler Kafka gives the
 * repository then passes it at once.
 */
@ApplicationScoped
public class EndedDoors {

  @Inject
  @Channel("doorbells-out")
  Emitter<String> doorbells;

  /** Rings the door of {@code ownerDid}'s repository {@code repoKey}, as asked for. */
  public void ring(String ownerDid, String repoKey) {
    doorbells.send(
        Message.of(DoorbellMessage.encode(Doorbell.ASKED))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder()
                    .withKey(ownerDid + "/" + repoKey)
                    .build()));
  }
}
