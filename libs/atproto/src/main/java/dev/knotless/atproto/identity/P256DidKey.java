package dev.knotless.atproto.identity;

import java.util.Arrays;

/**
 * A P-256 public key written as a {@code did:key}: multicodec {@code p256-pub} (0x1200) and the
 * compressed point, in base58btc. Only P-256 is accepted; anything else is refused with a message
 * naming what was found. Pure and thread-safe.
 */
public final class P256DidKey {

  private static final byte[] CODEC = {(byte) 0x80, 0x24};
  private static final String PREFIX = "did:key:z";

  private P256DidKey() {}

  /** The did:key of a compressed (33-byte) point. */
  public static String encode(byte[] compressedPoint) {
    if (compressedPoint.length != 33
        || (compressedPoint[0] != 0x02 && compressedPoint[0] != 0x03)) {
      throw new IllegalArgumentException("not a compressed P-256 point");
    }
    return PREFIX + Base58.encode(Base58.concat(CODEC, compressedPoint));
  }

  /**
   * The compressed point a did:key names.
   *
   * @throws IllegalArgumentException naming what is wrong, when it is no P-256 did:key
   */
  public static byte[] decode(String didKey) {
    if (didKey == null || !didKey.startsWith(PREFIX) || didKey.length() > 256) {
      throw new IllegalArgumentException("is not a did:key (did:key:z…)");
    }
    byte[] bytes = Base58.decode(didKey.substring(PREFIX.length()));
    if (bytes.length != 35 || !Arrays.equals(Arrays.copyOf(bytes, 2), CODEC)) {
      throw new IllegalArgumentException("is a did:key but not a compressed P-256 key");
    }
    if (bytes[2] != 0x02 && bytes[2] != 0x03) {
      throw new IllegalArgumentException("is a did:key but not a compressed P-256 point");
    }
    return Arrays.copyOfRange(bytes, 2, 35);
  }
}
