package dev.knotless.runner.mask;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MaskerPropertyTest {

  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 -_=:\"'é€\t";

  private static String randomText(Random r, int length) {
    StringBuilder sb = new StringBuilder();
    while (sb.length() < length) {
      int k = r.nextInt(20);
      sb.append(k == 0 ? "\n" : k == 1 ? "\r\n" : k == 2 ? "\r" : "");
      sb.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }

  private static String randomSecret(Random r) {
    if (r.nextInt(5) == 0) {
      // A multi-line value whose every line is long enough to be masked, as a PEM key's are.
      List<String> lines = new ArrayList<>();
      for (int i = 0, n = 2 + r.nextInt(3); i < n; i++) {
        lines.add("L" + i + randomWord(r, 4 + r.nextInt(12)));
      }
      return String.join(r.nextBoolean() ? "\n" : "\r\n", lines);
    }
    return randomWord(r, 1 + r.nextInt(24));
  }

  private static String randomWord(Random r, int length) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      sb.append("abcxyz0123é-_\"\\".charAt(r.nextInt(15)));
    }
    return sb.toString();
  }

  @Test
  void randomOutputSplitAtRandomNeverShowsAGrantedValueOfFourBytesOrMore() {
    Random r = new Random(20261129L);
    for (int round = 0; round < 1000; round++) {
      List<String> secrets = new ArrayList<>();
      for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) {
        secrets.add(randomSecret(r));
      }
      if (r.nextBoolean()) {
        // A secret inside another.
        String outer = secrets.get(0);
        secrets.add("<<" + outer + ">>");
      }
      StringBuilder output = new StringBuilder();
      for (int i = 0, n = 1 + r.nextInt(6); i < n; i++) {
        output.append(randomText(r, r.nextInt(40)));
        output.append(secrets.get(r.nextInt(secrets.size())));
      }
      output.append(randomText(r, r.nextInt(40)));
      byte[] all = output.toString().getBytes(StandardCharsets.UTF_8);

      Masker masker =
          new Masker(
              SecretMask.of(secrets),
              r.nextBoolean() ? Masker.Overflow.EMIT : Masker.Overflow.DROP,
              16 + r.nextInt(64));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int from = 0;
      while (from < all.length) {
        int n = Math.min(all.length - from, r.nextInt(12));
        out.writeBytes(masker.write(all, from, n));
        from += n;
      }
      out.writeBytes(masker.finish());
      String masked = out.toString(StandardCharsets.UTF_8);
      final int r0 = round;
      for (String s : secrets) {
        List<String> forms = new ArrayList<>(List.of(s));
        for (String line : s.split("\r\n|\r|\n")) {
          forms.add(line.strip());
        }
        for (String f : forms) {
          if (f.getBytes(StandardCharsets.UTF_8).length >= SecretMask.MIN_BYTES) {
            assertFalse(
                masked.contains(f),
                () -> "round " + r0 + ": \"" + f + "\" of " + secrets + " leaked in:\n" + masked);
          }
        }
      }
    }
  }

  /** A secret as a tool might write it, inside a longer encoded or escaped text. */
  private static String encodedAmid(Random r, String secret) {
    byte[] before = randomWord(r, r.nextInt(5)).getBytes(StandardCharsets.UTF_8);
    byte[] after = randomWord(r, r.nextInt(5)).getBytes(StandardCharsets.UTF_8);
    byte[] value = secret.getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[before.length + value.length + after.length];
    System.arraycopy(before, 0, all, 0, before.length);
    System.arraycopy(value, 0, all, before.length, value.length);
    System.arraycopy(after, 0, all, before.length + value.length, after.length);
    return switch (r.nextInt(4)) {
      case 0 -> java.util.Base64.getEncoder().encodeToString(all);
      case 1 -> java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(all);
      case 2 ->
          java.net.URLEncoder.encode(
              new String(all, StandardCharsets.UTF_8), StandardCharsets.UTF_8);
      default ->
          "\""
              + EncodedForms.jsonEscaped(
                  new String(all, StandardCharsets.UTF_8), r.nextBoolean(), r.nextBoolean())
              + "\"";
    };
  }

  @Test
  void aSecretEncodedAtAnyAlignmentAmidOtherBytesIsMaskedHoweverTheOutputIsSplit() {
    Random r = new Random(20261201L);
    for (int round = 0; round < 2000; round++) {
      // Long enough that every encoded form is past the encoded forms' minimum.
      String secret = randomWord(r, 9 + r.nextInt(20));
      String written = randomText(r, r.nextInt(20)) + encodedAmid(r, secret) + randomText(r, 5);
      byte[] all = written.getBytes(StandardCharsets.UTF_8);
      Masker masker = new Masker(SecretMask.of(List.of(secret)), Masker.Overflow.EMIT, 4096);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int from = 0;
      while (from < all.length) {
        int n = Math.min(all.length - from, 1 + r.nextInt(12));
        out.writeBytes(masker.write(all, from, n));
        from += n;
      }
      out.writeBytes(masker.finish());
      String masked = out.toString(StandardCharsets.UTF_8);
      final int r0 = round;
      org.junit.jupiter.api.Assertions.assertTrue(
          masked.contains("***"),
          () -> "round " + r0 + ": " + secret + " written as " + written + " was not masked");
    }
  }
}
