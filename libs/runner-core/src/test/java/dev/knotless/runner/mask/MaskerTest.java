package dev.knotless.runner.mask;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MaskerTest {

  static final String PEM =
      """
      -----BEGIN PRIVATE KEY-----
      MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2
      OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r
      1RTwjmYSi9R/zpBnuQ4EiMnCqfMPWiZqB4QdbAd0E7oH50VpuZ1P087G
      -----END PRIVATE KEY-----
      """;

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Feeds {@code text} to a masker cut at {@code cut}, returning everything it passed on. */
  static String split(SecretMask mask, String text, int... cuts) {
    Masker m = new Masker(mask, Masker.Overflow.EMIT);
    byte[] all = bytes(text);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int from = 0;
    for (int cut : cuts) {
      out.writeBytes(m.write(all, from, cut - from));
      from = cut;
    }
    out.writeBytes(m.write(all, from, all.length - from));
    out.writeBytes(m.finish());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aSecretSplitAcrossTwoWritesIsMaskedAtEveryOffset() {
    SecretMask mask = SecretMask.of(List.of("hunter2-password"));
    String text = "login with hunter2-password now\r\nand again: hunter2-password\nend";
    String expected = "login with *** now\r\nand again: ***\nend";
    for (int cut = 0; cut <= bytes(text).length; cut++) {
      assertEquals(expected, split(mask, text, cut), "cut at " + cut);
      for (int second = cut; second <= bytes(text).length; second += 3) {
        assertEquals(expected, split(mask, text, cut, second), "cuts at " + cut + ", " + second);
      }
    }
  }

  @Test
  void everyLineOfAPemKeyIsMaskedHoweverItIsPrinted() {
    SecretMask mask = SecretMask.of(List.of(PEM));
    String[] lines = PEM.strip().split("\n");
    String asWritten = mask.mask("key:\n" + PEM + "done\n");
    String indented = mask.mask("    " + String.join("\r\n    ", lines) + "\r\n");
    String jsonEscaped = mask.mask("{\"key\":\"" + PEM.replace("\n", "\\n") + "\"}");
    for (String out : List.of(asWritten, indented, jsonEscaped)) {
      for (String line : lines) {
        assertFalse(out.contains(line.strip()), line + " leaked in:\n" + out);
      }
    }
    assertEquals("key:\n***\n***\n***\n***\n***\ndone\n", asWritten);
    assertEquals("{\"key\":\"***\"}", jsonEscaped, "the escaped whole value wins as the longest");
  }

  @Test
  void aSecretInsideAnotherLeavesNothingBehind() {
    SecretMask mask = SecretMask.of(List.of("abcd", "xxabcdyy"));
    assertEquals("*** and ***", mask.mask("xxabcdyy and abcd"));
    SecretMask reversed = SecretMask.of(List.of("xxabcdyy", "abcd"));
    assertEquals("*** and ***", reversed.mask("xxabcdyy and abcd"));
  }

  @Test
  void valuesUnderFourBytesAreLeftAlone() {
    SecretMask mask = SecretMask.of(List.of("abc", "é1", "1234"));
    assertEquals("abc é1 ***", mask.mask("abc é1 1234"));
    assertTrue(SecretMask.of(List.of("a", "", "xy")).isEmpty());
    assertEquals("ééé", SecretMask.of(List.of("é")).mask("ééé"));
    assertEquals("***", SecretMask.of(List.of("éé")).mask("éé"), "four bytes in UTF-8");
  }

  @Test
  void quotedJsonEscapedAndCrlfFormsAreMasked() {
    SecretMask mask = SecretMask.of(List.of("pa\"ss\\word"));
    assertEquals("'***'", mask.mask("'pa\"ss\\word'"));
    assertEquals("{\"token\":\"***\"}", mask.mask("{\"token\":\"pa\\\"ss\\\\word\"}"));
    SecretMask plain = SecretMask.of(List.of("s3cr3t-t0ken"));
    assertEquals("TOKEN=\"***\"\r\n", split(plain, "TOKEN=\"s3cr3t-t0ken\"\r\n", 10));
  }

  @Test
  void encodedValuesAreCaughtAsJsonUrlAndBase64() {
    String secret = "s3cr3t/t0ken \"é\" <&>";
    SecretMask mask = SecretMask.of(List.of(secret));
    java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
    String python = "s3cr3t/t0ken \\\"\\u00e9\\\" <&>";
    String go = "s3cr3t/t0ken \\\"é\\\" \\u003c\\u0026\\u003e";
    String url = java.net.URLEncoder.encode(secret, java.nio.charset.StandardCharsets.UTF_8);
    for (String written :
        List.of(
            "{\"token\": \"" + python + "\"}",
            "{\"token\":\"" + go + "\"}",
            "https://h/?t=" + url,
            "https://h/?t=" + url.replace("+", "%20"),
            b64.encodeToString(bytes(secret)),
            java.util.Base64.getUrlEncoder().encodeToString(bytes(secret)),
            b64.encodeToString(bytes("x" + secret + "y")),
            b64.encodeToString(bytes("xy" + secret)))) {
      String masked = mask.mask(written);
      assertTrue(masked.contains("***"), written + " was not masked: " + masked);
    }
  }

  @Test
  void hexAndOtherTransformsAreNotCaughtAsTheDocsSay() {
    SecretMask mask = SecretMask.of(List.of("s3cr3t-t0ken"));
    String hex = java.util.HexFormat.of().formatHex(bytes("s3cr3t-t0ken"));
    assertEquals(hex, mask.mask(hex));
  }

  @Test
  void liveOutputGetsWholeLinesAndACarriageReturnOnlyOnceNoSecretCanCrossIt() {
    SecretMask mask = SecretMask.of(List.of("secret-value"));
    Masker m = new Masker(mask, Masker.Overflow.DROP);
    assertEquals("", new String(m.write(bytes("partial secr"))));
    assertEquals(12, m.held());
    assertEquals("partial ***\n", new String(m.write(bytes("et-value\n 10%\r"))));
    assertEquals("", new String(m.write(bytes(" 20%\r"))), "a secret may still cross the \\r");
    String more = "x".repeat(mask.window());
    assertEquals(" 10%\r 20%\r", new String(m.write(bytes(more))));
    assertEquals(more, new String(m.finish()));
    assertEquals(0, m.held());
  }

  @Test
  void aSecretSplitByACarriageReturnIsNotSentLiveInPieces() {
    SecretMask mask = SecretMask.of(List.of("secret-value"));
    Masker m = new Masker(mask, Masker.Overflow.DROP);
    StringBuilder sent = new StringBuilder();
    sent.append(new String(m.write(bytes("progress secret-\r"))));
    sent.append(new String(m.write(bytes("value " + "y".repeat(mask.window()) + "\rdone\n"))));
    sent.append(new String(m.finish()));
    assertEquals("progress ***" + " " + "y".repeat(mask.window()) + "\rdone\n", sent.toString());
  }

  @Test
  void aLineUnendedPastTheLimitIsLetGoForLiveOutputButKeptMaskedForTheLog() {
    SecretMask mask = SecretMask.of(List.of("secret-value"));
    String longLine = "x".repeat(300) + "secret-value" + "y".repeat(300);
    Masker drop = new Masker(mask, Masker.Overflow.DROP, 400);
    StringBuilder sent = new StringBuilder();
    sent.append(new String(drop.write(bytes("before\n" + longLine.substring(0, 70)))));
    sent.append(new String(drop.write(bytes(longLine.substring(70) + "\nafter\n"))));
    sent.append(new String(drop.finish()));
    assertEquals("before\n" + Masker.DROPPED_NOTE + "\nafter\n", sent.toString());

    Masker emit = new Masker(mask, Masker.Overflow.EMIT, 400);
    StringBuilder logged = new StringBuilder();
    for (int i = 0; i < longLine.length(); i += 7) {
      logged.append(
          new String(emit.write(bytes(longLine.substring(i, Math.min(i + 7, longLine.length()))))));
      assertTrue(emit.held() <= mask.window(), "held " + emit.held());
    }
    logged.append(new String(emit.finish()));
    assertEquals(longLine.replace("secret-value", "***"), logged.toString());
  }

  @Test
  void aLineLetGoForLiveOutputIsLetGoUpToItsNewlineEvenPastACarriageReturn() {
    SecretMask mask = SecretMask.of(List.of("secret-value"));
    Masker drop = new Masker(mask, Masker.Overflow.DROP, 400);
    String sent =
        new String(drop.write(bytes("z".repeat(500) + "secret-\rvalue\rnext\nafter\n")))
            + new String(drop.finish());
    assertEquals(Masker.DROPPED_NOTE + "\nafter\n", sent);
  }

  @Test
  void withNoSecretsEveryByteIsPassedOnAtOnceUntouched() {
    Masker m = new Masker(SecretMask.none(), Masker.Overflow.EMIT);
    byte[] raw = {'a', '\r', 'b', (byte) 0xff, 0x1b, '[', '0', 'm', 'c'};
    assertArrayEquals(raw, m.write(raw, 0, raw.length));
    assertEquals(0, m.held());
    assertArrayEquals(new byte[0], m.finish());
  }

  @Test
  void aProgressBarWithoutNewlinesReachesTheLogHoldingBackOnlyTheWindow() {
    SecretMask mask = SecretMask.of(List.of("secret-value"));
    Masker m = new Masker(mask, Masker.Overflow.EMIT);
    StringBuilder logged = new StringBuilder();
    StringBuilder printed = new StringBuilder();
    for (int pct = 0; pct < 100; pct++) {
      String frame = "\r[" + "=".repeat(pct / 5) + ">] " + pct + "% ";
      printed.append(frame);
      logged.append(new String(m.write(bytes(frame))));
      assertTrue(m.held() <= mask.window(), "held " + m.held());
    }
    assertTrue(logged.length() >= printed.length() - mask.window(), "logged " + logged.length());
    logged.append(new String(m.finish()));
    assertEquals(printed.toString(), logged.toString());
  }

  @Test
  void outputIsPassedOnByteForByteWithoutDecodingOrAddedLineEnds() {
    SecretMask mask = SecretMask.of(List.of("secret-value"));
    byte[] raw = {(byte) 0xc3, (byte) 0x28, 'x', '\r', (byte) 0xff, 's', 'e', 'c', '\r', 'n', 'o'};
    Masker m = new Masker(mask, Masker.Overflow.EMIT);
    byte[] a = m.write(raw, 0, 5);
    byte[] b = m.write(raw, 5, raw.length - 5);
    byte[] c = m.finish();
    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
    all.writeBytes(a);
    all.writeBytes(b);
    all.writeBytes(c);
    assertArrayEquals(raw, all.toByteArray());
  }

  @Test
  void theMaskingStreamWritesTheLogMasked() throws IOException {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    try (MaskingOutputStream log =
        new MaskingOutputStream(file, SecretMask.of(List.of("tok-123456")))) {
      log.write(bytes("==> build\nusing tok-1"));
      log.write(bytes("23456 to log in"));
    }
    assertEquals("==> build\nusing *** to log in", file.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theMaskNeverShowsAValueWhenPrinted() {
    assertFalse(SecretMask.of(List.of("hunter2-password")).toString().contains("hunter2"));
  }
}
