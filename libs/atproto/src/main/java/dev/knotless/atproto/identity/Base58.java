package dev.knotless.atproto.identity;

import java.math.BigInteger;
import java.util.Arrays;

/** Bitcoin-alphabet base58, as multibase {@code z…} strings use. Pure and thread-safe. */
final class Base58 {
  private static final String ALPHABET =
      "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  private static final BigInteger BASE = BigInteger.valueOf(58);

  private Base58() {}

  static byte[] decode(String s) {
    BigInteger n = BigInteger.ZERO;
    int zeros = 0;
    while (zeros < s.length() && s.charAt(zeros) == '1') {
      zeros++;
    }
    for (int i = 0; i < s.length(); i++) {
      int digit = ALPHABET.indexOf(s.charAt(i));
      if (digit < 0) {
        throw new IllegalArgumentException("'" + s.charAt(i) + "' is not a base58 character");
      }
      n = n.multiply(BASE).add(BigInteger.valueOf(digit));
    }
    byte[] magnitude = n.toByteArray();
    int skip = magnitude.length > 1 && magnitude[0] == 0 ? 1 : 0;
    if (n.signum() == 0) {
      skip = magnitude.length;
    }
    byte[] out = new byte[zeros + magnitude.length - skip];
    System.arraycopy(magnitude, skip, out, zeros, magnitude.length - skip);
    return out;
  }

  static String encode(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    BigInteger n = new BigInteger(1, bytes);
    while (n.signum() > 0) {
      BigInteger[] qr = n.divideAndRemainder(BASE);
      sb.append(ALPHABET.charAt(qr[1].intValue()));
      n = qr[0];
    }
    for (int i = 0; i < bytes.length && bytes[i] == 0; i++) {
      sb.append('1');
    }
    return sb.reverse().toString();
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
