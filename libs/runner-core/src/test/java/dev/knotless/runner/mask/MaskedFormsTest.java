package dev.knotless.runner.mask;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every form of a secret the masker catches, and, asserted as not caught so the list stays honest,
 * the forms it cannot. docs/secrets.md lists the same forms.
 */
class MaskedFormsTest {

  static final String SECRET = "gh_s3cr3t/T0k3n-9f8a7b";
  static final SecretMask MASK = SecretMask.of(List.of(SECRET));

  /** What the log shows of {@code printed}, written to a masker one byte at a time. */
  static String logged(String printed) {
    Masker m = new Masker(MASK, Masker.Overflow.EMIT);
    byte[] all = printed.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < all.length; i++) {
      out.writeBytes(m.write(all, i, 1));
    }
    out.writeBytes(m.finish());
    return out.toString(StandardCharsets.UTF_8);
  }

  static void caught(String printed) {
    assertEquals("[***]", logged("[" + printed + "]"), () -> "not caught: " + printed);
  }

  static void notCaught(String printed) {
    assertEquals(printed, logged(printed), "caught after all; move it to the caught forms");
  }

  // Caught.

  @Test
  void theValueAsWritten() {
    caught(SECRET);
  }

  @Test
  void eachTrimmedLineOfAValueOfSeveralLines() {
    SecretMask pem = SecretMask.of(List.of("-----BEGIN KEY-----\nMIGHAgEAMBMG\n-----END KEY-----"));
    assertEquals(
        "  ***\r\n  ***\r\n  ***",
        pem.mask("  -----BEGIN KEY-----\r\n  MIGHAgEAMBMG\r\n  -----END KEY-----"));
  }

  @Test
  void escapedInAJsonString() {
    SecretMask quoted = SecretMask.of(List.of("pa\"ss\\wo/rd"));
    assertEquals("{\"t\":\"***\"}", quoted.mask("{\"t\":\"pa\\\"ss\\\\wo/rd\"}"));
  }

  @Test
  void escapedInAJsonStringWithSlashesAsBackslashSlash() {
    caught(SECRET.replace("/", "\\/"));
    SecretMask quoted = SecretMask.of(List.of("pa\"ss/wo/rd"));
    assertEquals("{\"t\":\"***\"}", quoted.mask("{\"t\":\"pa\\\"ss\\/wo\\/rd\"}"));
  }

  @Test
  void escapedInAJsonStringWithNonAsciiAsUnicodeEscapes() {
    SecretMask accented = SecretMask.of(List.of("s3cr3t-é-t0ken"));
    assertEquals("\"***\"", accented.mask("\"s3cr3t-\\u00e9-t0ken\""));
    assertEquals("\"***\"", accented.mask("\"s3cr3t-\\u00E9-t0ken\""));
  }

  @Test
  void escapedInAJsonStringWithHtmlCharactersEscapedAsGoDoes() {
    SecretMask html = SecretMask.of(List.of("tok<en>&more"));
    assertEquals("\"***\"", html.mask("\"tok\\u003cen\\u003e\\u0026more\""));
  }

  @Test
  void percentEncodedInUpperCase() {
    caught(URLEncoder.encode(SECRET, StandardCharsets.UTF_8));
  }

  @Test
  void percentEncodedInLowerCase() {
    String upper = URLEncoder.encode(SECRET, StandardCharsets.UTF_8);
    caught(
        java.util.regex.Pattern.compile("%[0-9A-F]{2}")
            .matcher(upper)
            .replaceAll(m -> m.group().toLowerCase()));
  }

  @Test
  void percentEncodedInPart() {
    caught("gh_s3cr3t/T0k3n-9f%38a7b");
    caught("gh_s3cr3t%2FT0k3n-9f8a7b");
  }

  @Test
  void percentEncodedInFull() {
    StringBuilder all = new StringBuilder();
    for (byte b : SECRET.getBytes(StandardCharsets.UTF_8)) {
      all.append(String.format("%%%02x", b));
    }
    caught(all.toString());
  }

  @Test
  void percentEncodedWithSpacesAsPlusOrPercent20() {
    SecretMask spaced = SecretMask.of(List.of("my pass/phrase"));
    assertEquals("q=***", spaced.mask("q=my+pass%2fphrase"));
    assertEquals("q=***", spaced.mask("q=my%20pass%2Fphrase"));
  }

  @Test
  void inBase64OfEitherAlphabetAtAnyAlignment() {
    byte[] value = SECRET.getBytes(StandardCharsets.UTF_8);
    for (Base64.Encoder e : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
      for (String around : List.of("", "u:", "us:")) {
        byte[] all = (around + SECRET + "!").getBytes(StandardCharsets.UTF_8);
        String b64 = e.encodeToString(all);
        assertTrue(MASK.mask(b64).contains("***"), () -> "not caught: " + b64);
      }
      assertTrue(MASK.mask(e.encodeToString(value)).contains("***"));
    }
  }

  @Test
  void withColourCodesBetweenItsCharacters() {
    StringBuilder rainbow = new StringBuilder();
    for (int i = 0; i < SECRET.length(); i++) {
      rainbow.append(i == 0 ? "" : "\033[3" + (i % 8) + "m").append(SECRET.charAt(i));
    }
    caught(rainbow.toString());
    caught("gh_s3c\033[0mr3t/T0k\033[1;31m3n-9f8a7b");
  }

  @Test
  void withATerminalTitleOrLinkSequenceInside() {
    caught("gh_s3cr3t/\033]0;title\007T0k3n-9f8a7b");
    caught("gh_s3cr3t/\033]8;;https://x/\033\\T0k3n-9f8a7b");
  }

  @Test
  void splitByACarriageReturn() {
    caught("gh_s3cr3t/\rT0k3n-9f8a7b");
    caught("gh_s3cr3t/T0k3n-9f8a7b".replace("T", "\r\rT"));
  }

  @Test
  void inPiecesWrittenApartOnOneLine() {
    Masker m = new Masker(MASK, Masker.Overflow.EMIT);
    String out =
        new String(
                m.write("token: gh_s3c".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8)
            + new String(
                m.write("r3t/T0k3n-9f8a7b\n".getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8)
            + new String(m.finish(), StandardCharsets.UTF_8);
    assertEquals("token: ***\n", out);
  }

  @Test
  void inAnOutputFileOfAnyKind() {
    byte[] png = new byte[64];
    png[0] = (byte) 0x89;
    System.arraycopy("PNG".getBytes(StandardCharsets.US_ASCII), 0, png, 1, 3);
    byte[] value = SECRET.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(value, 0, png, 20, value.length);
    assertTrue(MASK.foundIn(png));
    assertTrue(MASK.foundIn(("x=" + SECRET.replace("/", "%2f")).getBytes(StandardCharsets.UTF_8)));
    assertFalse(MASK.foundIn(new byte[64]));
  }

  // Not caught.

  @Test
  void notCaughtSplitInPiecesPrintedOnSeparateLines() {
    notCaught("gh_s3cr3t/\nT0k3n-9f8a7b\n");
  }

  @Test
  void notCaughtReversed() {
    notCaught(new StringBuilder(SECRET).reverse().toString());
  }

  @Test
  void notCaughtInHex() {
    notCaught(HexFormat.of().formatHex(SECRET.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void notCaughtHashed() throws Exception {
    byte[] digest =
        java.security.MessageDigest.getInstance("SHA-256")
            .digest(SECRET.getBytes(StandardCharsets.UTF_8));
    notCaught(HexFormat.of().formatHex(digest));
  }

  @Test
  void notCaughtWithOtherTextBetweenItsCharacters() {
    notCaught(String.join(" ", SECRET.split("")));
  }

  @Test
  void notCaughtStretchedByMoreEscapeSequencesThanTheMaskLooksPast() {
    String reset = "\033[0m";
    int enough = ViewMatch.MAX_SKIPPED_BYTES / reset.length() + 1;
    notCaught("gh_s3cr3t/" + reset.repeat(enough) + "T0k3n-9f8a7b");
  }

  @Test
  void notCaughtWhenUnderFourBytes() {
    assertEquals("abc", SecretMask.of(List.of("abc")).mask("abc"));
  }
}
