package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RecordKeysTest {

  @Test
  void knotlessKeysAreValid() {
    RecordKeys.validate("3jzfcijpj2z2a.7eq32bpgrmbxidcfbzlf4dtbop.1700000000000");
    RecordKeys.validate("my-repo_1.0~x:y");
  }

  @Test
  void badRecordKeysAreRefusedNamingWhatIsWrong() {
    assertTrue(message("bad/key").contains("\"/\" at 3"));
    assertTrue(message("").contains("empty"));
    assertTrue(message("..").contains(". or .."));
    assertTrue(message("x".repeat(513)).contains("513"));
  }

  @Test
  void badNsidsAreRefusedNamingWhatIsWrong() {
    Nsids.validate("dev.knotless.ref");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Nsids.validate("knotless"))
            .getMessage()
            .contains("needs a domain and a name"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Nsids.validate("dev.knot_less.ref"))
            .getMessage()
            .contains("knot_less"));
  }

  @Test
  void atUrisParseAndPrintBack() {
    AtUri u = AtUri.parse("at://did:plc:abc/dev.knotless.ref/k.h");
    assertEquals("did:plc:abc", u.did());
    assertEquals("dev.knotless.ref", u.collection());
    assertEquals("k.h", u.rkey());
    assertEquals("at://did:plc:abc/dev.knotless.ref/k.h", u.toString());
    assertThrows(IllegalArgumentException.class, () -> AtUri.parse("https://x/y/z"));
    assertThrows(
        IllegalArgumentException.class, () -> AtUri.parse("at://did:plc:abc/dev.knotless.ref"));
  }

  private static String message(String rkey) {
    return assertThrows(IllegalArgumentException.class, () -> RecordKeys.validate(rkey))
        .getMessage();
  }
}
