package dev.knotless.run.checkwriter;

import static dev.knotless.run.checkwriter.CheckWriterFixture.awaitStatus;
import static dev.knotless.run.checkwriter.CheckWriterFixture.logBlob;
import static dev.knotless.run.checkwriter.CheckWriterFixture.publish;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.checkwriter.CheckWriterFixture.Run;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.PostgresResource;
import dev.knotless.runner.check.CheckRecord;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A run's outputs reach its check: the process that ran it uploaded them, its end names them, and
 * the check-writer files them with the check as the all-in-one does.
 */
@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "check-writer"))
@WithTestResource(value = PostgresResource.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = RunnerAccountResource.class, scope = TestResourceScope.GLOBAL)
@QuarkusTest
class CheckWriterOutputsIT {

  @Inject DataSource db;

  @Inject MeterRegistry registry;

  @Test
  void theImagesAnEndNamesAreFiledWithTheCheckInOrderAsTheAllInOneFilesThem() throws Exception {
    byte[] bytes = new byte[256];
    for (int i = 0; i < 256; i++) {
      bytes[i] = (byte) i;
    }
    byte[] svg = "<svg>a note</svg>\n".getBytes(StandardCharsets.UTF_8);
    XrpcClient runner = XrpcClient.create(RunnerAccountResource.pds().pdsUrl());
    runner.login(
        RunnerAccountResource.runner().handle(), RunnerAccountResource.runner().password());
    BlobRef png = runner.uploadBlob(bytes, "image/png");
    BlobRef note = runner.uploadBlob(svg, "image/svg+xml");
    Run run = CheckWriterFixture.queued(db, "shots");
    byte[] log = "==> shoot\n".getBytes(StandardCharsets.UTF_8);
    List<RunEvent> events = new ArrayList<>();
    events.add(run.filed());
    events.add(run.started());
    events.addAll(run.output(log, 0, log.length, 100));
    events.add(
        run.ended(
            log.length,
            List.of(
                new RunEvent.ImageOutput("bytes.png", png.cid(), png.mimeType(), png.size()),
                new RunEvent.ImageOutput("note.svg", note.cid(), note.mimeType(), note.size()))));
    publish(events);

    JsonNode check = awaitStatus(run, "success");
    assertEquals(
        List.of(
            shown(CheckRecord.imageOutput("bytes.png", png)),
            shown(CheckRecord.imageOutput("note.svg", note))),
        CheckRecord.fromJson(check).outputs().stream().map(CheckWriterOutputsIT::shown).toList());
    assertArrayEquals(bytes, blob(check, 0));
    assertArrayEquals(svg, blob(check, 1));
    assertArrayEquals(log, logBlob(check));
  }

  @Test
  void anEndNamingBlobsThePdsNoLongerHasIsFiledWithoutThemAndCounted() throws Exception {
    double lostBefore = lost();
    Run run = CheckWriterFixture.queued(db, "gone");
    byte[] log = "==> shoot\n".getBytes(StandardCharsets.UTF_8);
    List<RunEvent> events = new ArrayList<>();
    events.add(run.filed());
    events.add(run.started());
    events.addAll(run.output(log, 0, log.length, 100));
    events.add(
        run.ended(
            log.length,
            List.of(new RunEvent.ImageOutput("gone.png", neverUploaded(), "image/png", 42))));
    publish(events);

    JsonNode check = awaitStatus(run, "success");
    assertEquals(List.of(), CheckRecord.fromJson(check).outputs());
    assertArrayEquals(log, logBlob(check));
    assertEquals(lostBefore + 1, lost());
  }

  /** An output's fields as a reader takes them, whatever the JSON's number types. */
  private static String shown(JsonNode o) {
    return o.path("$type").asText()
        + " "
        + o.path("name").asText()
        + " "
        + BlobRef.fromJson(o.path("image"))
        + " "
        + o.path("image").path("$type").asText();
  }

  private double lost() {
    var c = registry.find("knotless.run.check_writer.outputs.lost").counter();
    return c == null ? 0 : c.count();
  }

  private static byte[] blob(JsonNode check, int i) throws Exception {
    BlobRef ref = BlobRef.fromJson(check.path("outputs").get(i).path("image"));
    return XrpcClient.create(RunnerAccountResource.pds().pdsUrl())
        .getBlob(RunnerAccountResource.runner().did(), ref.cid());
  }

  /** A well-formed blob CID (CIDv1, raw, sha-256) of bytes no one uploaded. */
  private static String neverUploaded() {
    byte[] digest = Hashes.sha256(("never " + System.nanoTime()).getBytes(StandardCharsets.UTF_8));
    byte[] cid = new byte[4 + digest.length];
    cid[0] = 0x01;
    cid[1] = 0x55;
    cid[2] = 0x12;
    cid[3] = 0x20;
    System.arraycopy(digest, 0, cid, 4, digest.length);
    return "b" + Hashes.base32(cid);
  }
}
