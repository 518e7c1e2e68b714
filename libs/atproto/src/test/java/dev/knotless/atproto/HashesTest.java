package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HashesTest {

  // Vectors computed independently: base64.b32encode(sha256(s)).lower()[:26] in Python.
  @ParameterizedTest
  @CsvSource({
    "refs/heads/main, 7eq32bpgrmbxidcfbzlf4dtbop",
    "did:plc:abc, wczajqtr25yugzh2hwo2qavqqe",
    "queue refs/heads/main, gkn5el4746pzeyvms3btnm2gqt",
    "refs/tags/vé, fkrdduhgjh66djz5diaz2f2ugv",
  })
  void hMatchesIndependentlyComputedVectors(String input, String expected) {
    assertEquals(expected, Hashes.h(input));
  }

  @Test
  void hOfTheEmptyStringIsStillTwentySixCharacters() {
    assertEquals("4oymiquy7qobjgx36tejs35zeq", Hashes.h(""));
  }

  @Test
  void hIsAlwaysAValidRecordKeyFragment() {
    for (int i = 0; i < 1000; i++) {
      String h = Hashes.h("refs/heads/branch-" + i);
      assertEquals(26, h.length());
      assertTrue(h.matches("[a-z2-7]{26}"), h);
    }
  }
}
