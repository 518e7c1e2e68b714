package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class RecordCidTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s);
  }

  private static String hex(String json) throws Exception {
    return HexFormat.of().formatHex(RecordCid.dagCbor(json(json)));
  }

  @Test
  void mapKeysGoShortestFirstThenByTheirBytesWhateverTheOrderSent() throws Exception {
    // {"a": 1, "c": "x", "bb": -1}: a, c (one byte each, by bytes), then bb.
    assertEquals("a36161016163617862626220", hex("{\"bb\":-1,\"c\":\"x\",\"a\":1}"));
    assertEquals(hex("{\"bb\":-1,\"c\":\"x\",\"a\":1}"), hex("{\"a\":1,\"bb\":-1,\"c\":\"x\"}"));
  }

  @Test
  void integersAndLengthsTakeTheirShortestForm() throws Exception {
    assertEquals("17", hex("23"));
    assertEquals("1818", hex("24"));
    assertEquals("1901f4", hex("500"));
    assertEquals("1a00010000", hex("65536"));
    assertEquals("1b0000000100000000", hex("4294967296"));
    assertEquals("3818", hex("-25"));
    assertEquals("1bffffffffffffffff", hex("18446744073709551615"));
    assertEquals("f5", hex("true"));
    assertEquals("f6", hex("null"));
    assertEquals("8201820203", hex("[1,[2,3]]"));
    assertEquals("781a" + "61".repeat(26), hex("\"" + "a".repeat(26) + "\""));
  }

  @Test
  void aLinkIsTag42OverTheCidsBytesAndBytesAreAByteString() throws Exception {
    String cid = RecordCid.of(json("{\"$type\":\"x.y\"}"));
    String link = hex("{\"$link\":\"" + cid + "\"}");
    // tag 42, a byte string of 37: the 0x00 prefix, then version 1, dag-cbor, sha2-256, 32 bytes.
    assertTrue(link.startsWith("d82a582500017112"), link);
    assertEquals(2 * (2 + 2 + 37), link.length());
    assertEquals("43010203", hex("{\"$bytes\":\"AQID\"}"));
  }

  @Test
  void theCidIsVersionOneDagCborSha256InBase32() throws Exception {
    String cid = RecordCid.of(json("{\"$type\":\"dev.knotless.check\",\"status\":\"queued\"}"));
    assertTrue(cid.startsWith("bafyrei"), cid);
    assertEquals(59, cid.length());
    byte[] bytes =
        RecordCid.dagCbor(json("{\"status\":\"queued\",\"$type\":\"dev.knotless.check\"}"));
    assertArrayEquals(
        bytes, RecordCid.dagCbor(json("{\"$type\":\"dev.knotless.check\",\"status\":\"queued\"}")));
  }

  @Test
  void whatTheDataModelDoesNotHoldIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RecordCid.of(json("{\"steps\":[{\"took\":1.5}]}")));
    assertTrue(e.getMessage().contains("record.steps[0].took"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> RecordCid.of(json("{\"l\":{\"$link\":\"Qm1\"}}")));
    assertThrows(
        IllegalArgumentException.class, () -> RecordCid.of(json("{\"n\":18446744073709551616}")));
  }
}
