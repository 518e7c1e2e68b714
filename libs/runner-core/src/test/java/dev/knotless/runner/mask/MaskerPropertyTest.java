package dev.knotless.runner.mask;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

  /**
   * A secret as a terminal or a careless encoder may print it; each form starts and ends with it.
   */
  static String disguised(Random r, String secret) {
    StringBuilder sb = new StringBuilder();
    int kind = r.nextInt(6);
    for (int i = 0; i < secret.length(); i++) {
      char c = secret.charAt(i);
      if (i > 0 && kind == 1 && r.nextInt(4) == 0) {
        sb.append(r.nextBoolean() ? "\033[0m" : "\033[1;3" + r.nextInt(8) + "m");
      }
      if (i > 0 && kind == 2 && r.nextInt(6) == 0) {
        sb.append('\r');
      }
      if (kind == 3 && r.nextInt(3) == 0) {
        sb.append(String.format(r.nextBoolean() ? "%%%02x" : "%%%02X", (int) c));
      } else if (kind == 4 && c == '/') {
        sb.append("\\/");
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  private static int writeSize(Random r) {
    // 1 byte to 64 KiB, as likely small as large.
    return 1 + r.nextInt(1 << r.nextInt(17));
  }

  /** Feeds {@code all} in random-sized writes, 1 byte to 64 KiB; returns everything passed on. */
  static byte[] fedAtRandom(Masker masker, byte[] all, Random r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(all.length);
    int from = 0;
    while (from < all.length) {
      int n = Math.min(all.length - from, writeSize(r));
      out.writeBytes(masker.write(all, from, n));
      from += n;
    }
    out.writeBytes(masker.finish());
    return out.toByteArray();
  }

  @Test
  void aSecretPrintedAHundredThousandTimesInAnyFormNeverShowsMoreThanHalfOfItself() {
    String secret = "gh_s3cr3t/T0k3n-9f8a7b6c5d";
    String filler = "QWXYZ .,;:()[]";
    for (Masker.Overflow overflow : Masker.Overflow.values()) {
      Random r = new Random(20270117L + overflow.ordinal());
      StringBuilder printed = new StringBuilder();
      List<String> forms = new ArrayList<>();
      for (int i = 0; i < 100_000; i++) {
        for (int k = r.nextInt(4); k > 0; k--) {
          printed.append(filler.charAt(r.nextInt(filler.length())));
        }
        String form = r.nextInt(3) == 0 ? disguised(r, secret) : secret;
        forms.add(form);
        printed.append(form);
        printed.append(r.nextInt(5) == 0 ? "\r" : r.nextInt(4) == 0 ? " " : "\n");
      }
      byte[] all = printed.toString().getBytes(StandardCharsets.UTF_8);
      String out =
          new String(
              fedAtRandom(new Masker(SecretMask.of(List.of(secret)), overflow), all, r),
              StandardCharsets.UTF_8);

      for (int length = secret.length(); length > secret.length() / 2; length--) {
        for (int start = 0; start + length <= secret.length(); start++) {
          String piece = secret.substring(start, start + length);
          int at = out.indexOf(piece);
          assertFalse(at >= 0, () -> overflow + ": " + piece + " shows at " + at);
        }
      }
      // Every *** stands for one printing, and nothing else changed.
      String[] between = out.split("\\*\\*\\*", -1);
      assertEquals(forms.size() + 1, between.length, overflow + ": one *** per printing");
      StringBuilder back = new StringBuilder(between[0]);
      for (int i = 0; i < forms.size(); i++) {
        back.append(forms.get(i)).append(between[i + 1]);
      }
      org.junit.jupiter.api.Assertions.assertTrue(
          back.toString().equals(printed.toString()), overflow + ": output changed besides ***");
    }
  }

  @Test
  void randomOutputWithSecretsInDisguiseNeverShowsOneHoweverTheWritesFall() {
    Random r = new Random(20270118L);
    for (int round = 0; round < 1000; round++) {
      String secret = "k" + randomWord(r, 5 + r.nextInt(20)).replace('"', '/');
      StringBuilder printed = new StringBuilder();
      for (int i = 0, n = 1 + r.nextInt(6); i < n; i++) {
        printed.append(randomText(r, r.nextInt(40)).replace('\r', ' '));
        printed.append(disguised(r, secret));
      }
      printed.append(randomText(r, r.nextInt(40)));
      byte[] all = printed.toString().getBytes(StandardCharsets.UTF_8);
      Masker.Overflow overflow = r.nextBoolean() ? Masker.Overflow.EMIT : Masker.Overflow.DROP;
      Masker masker = new Masker(SecretMask.of(List.of(secret)), overflow);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int from = 0;
      while (from < all.length) {
        int n = Math.min(all.length - from, r.nextInt(12));
        out.writeBytes(masker.write(all, from, n));
        from += n;
      }
      out.writeBytes(masker.finish());
      String masked = out.toString(StandardCharsets.UTF_8);
      String shown = masked.replaceAll("\033\\[[0-9;]*m|\r", "");
      final int r0 = round;
      assertFalse(
          shown.contains(secret) || masked.contains(secret),
          () -> "round " + r0 + ": " + secret + " shows in:\n" + masked);
      assertEquals(
          (int) printed.chars().filter(c -> c == '\n').count(),
          (int) masked.chars().filter(c -> c == '\n').count(),
          "round " + r0 + ": no line lost or added");
    }
  }
}
