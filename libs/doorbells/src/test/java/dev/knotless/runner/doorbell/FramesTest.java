package dev.knotless.runner.doorbell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.RecordChange.Operation;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading Jetstream and firehose frames, and the addresses the sources connect to. */
class FramesTest {
  @Test
  void aJetstreamCommitReadsAsTheRecordChangeItNames() {
    String frame =
        "{\"did\":\"did:plc:alice\",\"time_us\":1725911162329308,\"kind\":\"commit\","
            + "\"commit\":{\"rev\":\"3l3qo2vutsw2b\",\"operation\":\"delete\","
            + "\"collection\":\"dev.knotless.ref\",\"rkey\":\"3kapp2222222a.abc\"}}";

    assertEquals(
        Optional.of(
            new RecordChange(
                "did:plc:alice", "dev.knotless.ref", "3kapp2222222a.abc", Operation.DELETE)),
        JetstreamFrames.parse(frame));
  }

  @Test
  void jetstreamIdentityAndAccountEventsCarryNoChange() {
    assertEquals(
        Optional.empty(),
        JetstreamFrames.parse("{\"did\":\"did:plc:a\",\"time_us\":1,\"kind\":\"identity\"}"));
    assertEquals(
        Optional.empty(),
        JetstreamFrames.parse("{\"did\":\"did:plc:a\",\"time_us\":1,\"kind\":\"account\"}"));
  }

  @Test
  void aJetstreamCommitMissingAFieldIsRefusedNamingIt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                JetstreamFrames.parse(
                    "{\"did\":\"did:plc:a\",\"kind\":\"commit\",\"commit\":"
                        + "{\"operation\":\"create\",\"collection\":\"dev.knotless.ref\"}}"));
    assertTrue(e.getMessage().contains("commit.rkey"), e.getMessage());
  }

  @Test
  void aFirehoseCommitReadsEveryOpPathAndAction() throws Exception {
    byte[] frame =
        frame(
            Map.of("op", 1, "t", "#commit"),
            Map.of(
                "seq",
                7,
                "repo",
                "did:plc:alice",
                "blocks",
                new byte[] {1, 2, 3},
                "ops",
                List.of(
                    Map.of("action", "create", "path", "dev.knotless.ref/3kapp2222222a.x"),
                    Map.of("action", "update", "path", "dev.knotless.repo/app"))));

    assertEquals(
        new FirehoseFrames.Commit(
            "did:plc:alice",
            List.of(
                new RecordChange(
                    "did:plc:alice", "dev.knotless.ref", "3kapp2222222a.x", Operation.CREATE),
                new RecordChange("did:plc:alice", "dev.knotless.repo", "app", Operation.UPDATE))),
        FirehoseFrames.parse(frame));
  }

  @Test
  void aFirehoseErrorFrameAndOtherMessagesAreToldApart() throws Exception {
    assertEquals(
        new FirehoseFrames.Failure("FutureCursor", "Cursor in the future."),
        FirehoseFrames.parse(
            frame(
                Map.of("op", -1),
                Map.of("error", "FutureCursor", "message", "Cursor in the future."))));
    assertEquals(
        new FirehoseFrames.Other("#identity"),
        FirehoseFrames.parse(frame(Map.of("op", 1, "t", "#identity"), Map.of("seq", 1))));
  }

  @Test
  void aFirehoseFrameWithoutItsBodyOrWithABadPathIsRefused() throws Exception {
    IllegalArgumentException noBody =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                FirehoseFrames.parse(
                    new com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper()
                        .writeValueAsBytes(Map.of("op", 1, "t", "#commit"))));
    assertTrue(noBody.getMessage().contains("header map followed by a body"), noBody.getMessage());
    IllegalArgumentException badPath =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                FirehoseFrames.parse(
                    frame(
                        Map.of("op", 1, "t", "#commit"),
                        Map.of(
                            "repo",
                            "did:plc:a",
                            "ops",
                            List.of(Map.of("action", "create", "path", "noslash"))))));
    assertTrue(badPath.getMessage().contains("\"noslash\""), badPath.getMessage());
  }

  @Test
  void theJetstreamAddressCarriesTheFiltersAndNoCursor() {
    URI uri =
        JetstreamSource.subscribeUri(
            JetstreamSource.DEFAULT_URL,
            Set.of("dev.knotless.rerun", "dev.knotless.ref"),
            Set.of("did:plc:b", "did:plc:a"));

    assertEquals(
        "wss://jetstream2.us-east.bsky.network/subscribe?wantedCollections=dev.knotless.ref"
            + "&wantedCollections=dev.knotless.rerun&wantedDids=did%3Aplc%3Aa&wantedDids=did%3Aplc%3Ab",
        uri.toString());
    assertTrue(!uri.toString().contains("cursor"));
  }

  @Test
  void theFirehoseAddressIsThePdsSubscribeReposOverWebSocket() {
    assertEquals(
        URI.create("ws://127.0.0.1:2583/xrpc/com.atproto.sync.subscribeRepos"),
        FirehoseSource.subscribeUri(URI.create("http://127.0.0.1:2583")));
    assertEquals(
        URI.create("wss://pds.example.com/xrpc/com.atproto.sync.subscribeRepos"),
        FirehoseSource.subscribeUri(URI.create("https://pds.example.com/")));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> FirehoseSource.subscribeUri(URI.create("ftp://pds.example.com")));
    assertTrue(e.getMessage().contains("--firehose"), e.getMessage());
  }

  @Test
  void aJetstreamAddressThatIsNotAWebSocketIsRefusedNamingTheFlag() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new JetstreamSource(
                    URI.create("https://jetstream.example/subscribe"),
                    new DoorMatcher(),
                    new RecordingSink(
                        new Doors(
                            (r, s) -> {}, Runnable::run, new FakeClock(), Doors.DEFAULT_SWEEP),
                        List.of()),
                    new FakeClock(),
                    SourceTimings.defaults()));
    assertTrue(e.getMessage().contains("--jetstream"), e.getMessage());
  }

  /** A firehose frame: the header's and the body's DAG-CBOR back to back. */
  static byte[] frame(Object header, Object body) throws Exception {
    com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper cbor =
        new com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(cbor.writeValueAsBytes(header));
    out.writeBytes(cbor.writeValueAsBytes(body));
    return out.toByteArray();
  }
}
