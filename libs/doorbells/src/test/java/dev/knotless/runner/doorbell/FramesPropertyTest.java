package dev.knotless.runner.doorbell;

import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.knotless.testing.Fuzz;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The doorbells' frame readers over hostile bytes: random frames and mutations of valid ones. A
 * frame either reads or is refused with an IllegalArgumentException naming what is wrong; nothing
 * else escapes, and no frame takes long. Seed and cases: see {@link Fuzz}.
 */
class FramesPropertyTest {
  private static final CBORMapper CBOR = new CBORMapper();

  private static final byte[] FF8 = {-1, -1, -1, -1, -1, -1, -1, -1};

  /** CBOR heads with lengths no frame can hold, indefinite lengths, tags and breaks. */
  private static final List<byte[]> CBOR_TOKENS =
      List.of(
          head(0x5b, FF8),
          head(0x7b, FF8),
          head(0x9b, FF8),
          head(0xbb, FF8),
          head(0x5a, new byte[] {0x7f, -1, -1, -1}),
          head(0x9a, new byte[] {0x7f, -1, -1, -1}),
          head(0xba, new byte[] {0x7f, -1, -1, -1}),
          head(0x1b, FF8),
          new byte[] {0x5f, 0x41, 0x00},
          new byte[] {(byte) 0x9f, (byte) 0x9f, (byte) 0xbf},
          new byte[] {(byte) 0xff},
          new byte[] {(byte) 0xd8, 0x2a, 0x45, 0x00, 0x01},
          new byte[] {(byte) 0xfb, 0x7f, (byte) 0xf8, 0, 0, 0, 0, 0, 0},
          new byte[] {(byte) 0xf9, 0x7c, 0x00},
          new byte[] {(byte) 0x1c, (byte) 0xfc});

  private static byte[] head(int first, byte[] length) {
    return Fuzz.insert(length, 0, new byte[] {(byte) first});
  }

  private static byte[] firehoseCommit() throws Exception {
    byte[] header = CBOR.writeValueAsBytes(Map.of("op", 1, "t", "#commit"));
    byte[] body =
        CBOR.writeValueAsBytes(
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
                    Map.of("action", "delete", "path", "dev.knotless.repo/app"))));
    return Fuzz.insert(body, 0, header);
  }

  @Test
  void firehoseFramesReadOrAreRefusedNamingWhy() throws Exception {
    Random r = new Random(Fuzz.SEED);
    byte[] valid = firehoseCommit();
    byte[] error =
        Fuzz.insert(
            CBOR.writeValueAsBytes(Map.of("error", "FutureCursor", "message", "no")),
            0,
            CBOR.writeValueAsBytes(Map.of("op", -1)));
    // Two mutations of a commit for each of an error frame.
    Fuzz.ByteCases cases =
        new Fuzz.ByteCases(
            List.of(error, valid, valid),
            CBOR_TOKENS,
            List.of(new byte[] {(byte) 0x81}, new byte[] {(byte) 0xa1, 0x61, 0x61}),
            256);
    Fuzz.byteCases(
        "FirehoseFrames.parse",
        r,
        500,
        cases,
        frame -> frame,
        FirehoseFrames::parse,
        IllegalArgumentException.class);
  }

  @Test
  void aFirehoseFrameNestedDeeperThanAnyCommitIsRefused() {
    byte[] deep = Fuzz.nest(new byte[] {0x00}, 0, new byte[] {(byte) 0x81}, 200_000);
    Fuzz.batch(
        1,
        () ->
            Fuzz.holds(
                "FirehoseFrames.parse",
                deep,
                FirehoseFrames::parse,
                IllegalArgumentException.class));
  }

  @Test
  void jetstreamFramesReadOrAreRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED + 1);
    byte[] valid =
        ("{\"did\":\"did:plc:alice\",\"time_us\":1725911162329308,\"kind\":\"commit\","
                + "\"commit\":{\"rev\":\"3l3qo2vutsw2b\",\"operation\":\"create\","
                + "\"collection\":\"dev.knotless.ref\",\"rkey\":\"3kapp2222222a.abc\","
                + "\"record\":{\"name\":\"refs/heads/main\",\"n\":[1,2.5,true,null]},"
                + "\"cid\":\"bafyreib\"}}")
            .getBytes(StandardCharsets.UTF_8);
    Fuzz.byteCases(
        "JetstreamFrames.parseEvent",
        r,
        500,
        Fuzz.ByteCases.of(valid, Fuzz.JSON_TOKENS, Fuzz.utf8("["), Fuzz.utf8("{\"commit\":")),
        Fuzz::text,
        JetstreamFrames::parseEvent,
        IllegalArgumentException.class);
  }
}
