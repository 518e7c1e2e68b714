package dev.knotless.testing.chart;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** An IP range in CIDR notation, to ask a NetworkPolicy's ipBlocks which addresses they let out. */
record Cidr(byte[] network, int prefix) {
  static Cidr parse(String cidr) {
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("not a CIDR (no /): " + cidr);
    }
    return new Cidr(address(cidr.substring(0, slash)), Integer.parseInt(cidr.substring(slash + 1)));
  }

  static byte[] address(String literal) {
    try {
      // A literal address: no lookup happens.
      byte[] raw = InetAddress.getByName(literal).getAddress();
      if (literal.contains(":") && raw.length == 4) {
        // Java folds ::ffff:a.b.c.d into IPv4; keep it IPv6 the way a packet filter would see it.
        byte[] v6 = new byte[16];
        v6[10] = (byte) 0xff;
        v6[11] = (byte) 0xff;
        System.arraycopy(raw, 0, v6, 12, 4);
        return v6;
      }
      return raw;
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + literal, e);
    }
  }

  boolean contains(String ip) {
    byte[] a = address(ip);
    if (a.length != network.length) {
      return false;
    }
    int bits = a.length * 8;
    BigInteger mask =
        BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE).shiftRight(prefix).not();
    return new BigInteger(1, a).and(mask).equals(new BigInteger(1, network).and(mask));
  }
}
