package dev.knotless.atproto;

import java.security.SecureRandom;
import java.time.Instant;

/**
 * Timestamp identifiers: 13 characters of sortable base32 holding microseconds since the epoch (53
 * bits) and a 10-bit clock id, so that TIDs sort as the times they were minted.
 *
 * <p>{@link #next()} is monotonic within the process: two calls never return the same TID, and a
 * later call never returns a smaller one, even if the wall clock steps back. Thread-safe.
 */
public final class Tid {

  static final String ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";
  private static final int CLOCK_ID = new SecureRandom().nextInt(1024);
  private static long last;

  private Tid() {}

  /** A new TID, greater than every TID this process minted before. */
  public static String next() {
    long micros = Instant.now().toEpochMilli() * 1000 + (System.nanoTime() / 1000) % 1000;
    synchronized (Tid.class) {
      if (micros <= last) {
        micros = last + 1;
      }
      last = micros;
    }
    return of(micros, CLOCK_ID);
  }

  /** The TID for a time in microseconds since the epoch and a clock id in [0, 1024). */
  public static String of(long micros, int clockId) {
    if (micros < 0 || micros >= (1L << 53)) {
      throw new IllegalArgumentException("TID time out of range: " + micros);
    }
    if (clockId < 0 || clockId >= 1024) {
      throw new IllegalArgumentException("TID clock id out of range: " + clockId);
    }
    long v = (micros << 10) | clockId;
    char[] out = new char[13];
    for (int i = 12; i >= 0; i--) {
      out[i] = ALPHABET.charAt((int) (v & 31));
      v >>>= 5;
    }
    return new String(out);
  }

  /** True if {@code s} is a well-formed TID. */
  public static boolean isValid(String s) {
    if (s == null || s.length() != 13) {
      return false;
    }
    // The first symbol carries the top bit, which is always 0.
    if (ALPHABET.indexOf(s.charAt(0)) >= 16) {
      return false;
    }
    for (int i = 0; i < 13; i++) {
      if (ALPHABET.indexOf(s.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The microseconds since the epoch a TID was minted at.
   *
   * @throws IllegalArgumentException if {@code tid} is not a TID
   */
  public static long micros(String tid) {
    if (!isValid(tid)) {
      throw new IllegalArgumentException("not a TID: " + tid);
    }
    long v = 0;
    for (int i = 0; i < 13; i++) {
      v = (v << 5) | ALPHABET.indexOf(tid.charAt(i));
    }
    return v >>> 10;
  }

  /** The instant a TID was minted at. */
  public static Instant instant(String tid) {
    long micros = micros(tid);
    return Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1000);
  }
}
