package dev.knotless.atproto;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The hashes knotless keys records by. {@link #h(String)} is the first 26 characters of the
 * lowercase base32 (RFC 4648 alphabet, no padding) of the SHA-256 of the UTF-8 bytes: 130 bits,
 * always a valid record-key fragment. Stateless and thread-safe.
 */
public final class Hashes {

  private static final String BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

  private Hashes() {}

  /** {@code h(s)}: 26 characters of lowercase base32 SHA-256. */
  public static String h(String s) {
    return base32(sha256(s.getBytes(StandardCharsets.UTF_8))).substring(0, 26);
  }

  /** SHA-256 of the bytes. */
  public static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /** Lowercase RFC 4648 base32 without padding. */
  public static String base32(byte[] data) {
    StringBuilder out = new StringBuilder((data.length * 8 + 4) / 5);
    int buffer = 0;
    int bits = 0;
    for (byte b : data) {
      buffer = (buffer << 8) | (b & 0xff);
      bits += 8;
      while (bits >= 5) {
        out.append(BASE32.charAt((buffer >>> (bits - 5)) & 31));
        bits -= 5;
      }
    }
    if (bits > 0) {
      out.append(BASE32.charAt((buffer << (5 - bits)) & 31));
    }
    return out.toString();
  }
}
