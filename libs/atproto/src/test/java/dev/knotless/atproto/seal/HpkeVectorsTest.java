package dev.knotless.atproto.seal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HexFormat;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.hpke.HPKE;
import org.bouncycastle.crypto.hpke.HPKEContext;
import org.bouncycastle.crypto.hpke.HPKEContextWithEncapsulation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The suite knotless seals with, checked against RFC 9180's published vectors for it (Appendix
 * A.3.1, base mode; the file under test resources says where they were copied from).
 */
class HpkeVectorsTest {

  private static final HexFormat HEX = HexFormat.of();
  private static JsonNode v;

  @BeforeAll
  static void load() throws Exception {
    try (InputStream in =
        HpkeVectorsTest.class.getResourceAsStream(
            "/rfc9180/a3-1-p256-sha256-aes128gcm-base.json")) {
      v = new ObjectMapper().readTree(in);
    }
  }

  private static byte[] hex(String field) {
    return HEX.parseHex(v.path(field).asText());
  }

  @Test
  void theSuiteIsTheOneTheVectorsAreFor() {
    assertEquals(0, v.path("mode").asInt());
    assertEquals(HPKE.kem_P256_SHA256, v.path("kem_id").asInt());
    assertEquals(HPKE.kdf_HKDF_SHA256, v.path("kdf_id").asInt());
    assertEquals(HPKE.aead_AES_GCM128, v.path("aead_id").asInt());
  }

  @Test
  void derivedKeyPairsMatchThePublishedOnes() {
    HPKE h = Hpke.suite();
    AsymmetricCipherKeyPair e = h.deriveKeyPair(hex("ikmE"));
    AsymmetricCipherKeyPair r = h.deriveKeyPair(hex("ikmR"));
    assertArrayEquals(hex("skEm"), h.serializePrivateKey(e.getPrivate()));
    assertArrayEquals(hex("pkEm"), h.serializePublicKey(e.getPublic()));
    assertArrayEquals(hex("skRm"), h.serializePrivateKey(r.getPrivate()));
    assertArrayEquals(hex("pkRm"), h.serializePublicKey(r.getPublic()));
    assertArrayEquals(hex("pkRm"), Hpke.uncompressed(Hpke.publicKey(hex("skRm"))));
  }

  @Test
  void sealingWithThePublishedEphemeralKeyGivesThePublishedEncAndFirstCiphertext() {
    HPKE h = Hpke.suite();
    JsonNode first = v.path("encryptions").get(0);
    Hpke.Sealed s =
        Hpke.seal(
            hex("pkRm"),
            hex("info"),
            HEX.parseHex(first.path("aad").asText()),
            HEX.parseHex(first.path("pt").asText()),
            h.deriveKeyPair(hex("ikmE")));
    assertArrayEquals(hex("enc"), s.enc());
    assertArrayEquals(HEX.parseHex(first.path("ct").asText()), s.ciphertext());
  }

  @Test
  void everyPublishedEncryptionIsReproducedInSequence() throws Exception {
    HPKE h = Hpke.suite();
    HPKEContextWithEncapsulation ctx =
        h.setupBaseS(
            h.deserializePublicKey(hex("pkRm")), hex("info"), h.deriveKeyPair(hex("ikmE")));
    assertArrayEquals(hex("enc"), ctx.getEncapsulation());
    int seq = 0;
    int checked = 0;
    for (JsonNode e : v.path("encryptions")) {
      byte[] pt = HEX.parseHex(e.path("pt").asText());
      while (seq < e.path("seq").asInt()) {
        ctx.seal(new byte[0], pt); // sequence numbers the RFC does not list
        seq++;
      }
      assertArrayEquals(
          HEX.parseHex(e.path("ct").asText()),
          ctx.seal(HEX.parseHex(e.path("aad").asText()), pt),
          "sequence " + seq);
      seq++;
      checked++;
    }
    assertEquals(6, checked);
  }

  @Test
  void thePublishedCiphertextsOpenWithTheRecipientKeyAndTheExportsMatch() throws Exception {
    HPKE h = Hpke.suite();
    HPKEContext ctx = h.setupBaseR(hex("enc"), Hpke.keyPair(h, hex("skRm")), hex("info"));
    int seq = 0;
    for (JsonNode e : v.path("encryptions")) {
      while (seq < e.path("seq").asInt()) {
        ctx.seal(new byte[0], new byte[0]); // advances the receiver's sequence as an open would
        seq++;
      }
      assertArrayEquals(
          HEX.parseHex(e.path("pt").asText()),
          ctx.open(HEX.parseHex(e.path("aad").asText()), HEX.parseHex(e.path("ct").asText())));
      seq++;
    }
    for (JsonNode x : v.path("exports")) {
      assertArrayEquals(
          HEX.parseHex(x.path("value").asText()),
          ctx.export(HEX.parseHex(x.path("context").asText()), x.path("L").asInt()));
    }
  }

  @Test
  void theFirstPublishedCiphertextOpensSingleShotAndNotWithAnotherAad() throws Exception {
    JsonNode first = v.path("encryptions").get(0);
    byte[] ct = HEX.parseHex(first.path("ct").asText());
    assertArrayEquals(
        HEX.parseHex(first.path("pt").asText()),
        Hpke.open(
            hex("skRm"), hex("enc"), ct, hex("info"), HEX.parseHex(first.path("aad").asText())));
    assertThrows(
        SealException.class,
        () -> Hpke.open(hex("skRm"), hex("enc"), ct, hex("info"), HEX.parseHex("436f756e742d31")));
    assertThrows(
        SealException.class,
        () ->
            Hpke.open(
                hex("skEm"),
                hex("enc"),
                ct,
                hex("info"),
                HEX.parseHex(first.path("aad").asText())));
  }
}
