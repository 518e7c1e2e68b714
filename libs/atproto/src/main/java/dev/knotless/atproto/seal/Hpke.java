package dev.knotless.atproto.seal;

import java.security.SecureRandom;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.hpke.HPKE;
import org.bouncycastle.crypto.hpke.HPKEContext;
import org.bouncycastle.crypto.hpke.HPKEContextWithEncapsulation;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;

/**
 * HPKE (RFC 9180) in base mode with the one suite knotless uses, DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256 and AES-128-GCM, as BouncyCastle implements it: single-shot seal and open, and the
 * key handling around it. Keys cross this class as bytes: a private key as its 32-byte scalar, a
 * public key as its uncompressed (65-byte) or compressed (33-byte) point. Stateless and
 * thread-safe.
 */
public final class Hpke {

  /** What a seal gives: the encapsulated key and the ciphertext with its 16-byte tag. */
  public record Sealed(byte[] enc, byte[] ciphertext) {}

  private static final SecureRandom RANDOM = new SecureRandom();

  private Hpke() {}

  static HPKE suite() {
    return new HPKE(
        HPKE.mode_base, HPKE.kem_P256_SHA256, HPKE.kdf_HKDF_SHA256, HPKE.aead_AES_GCM128);
  }

  /** A new private key, as its 32-byte scalar. */
  public static byte[] generatePrivateKey() {
    HPKE h = suite();
    AsymmetricCipherKeyPair kp = h.deriveKeyPair(randomBytes(32));
    return h.serializePrivateKey(kp.getPrivate());
  }

  /** The public key of a private scalar, as its compressed (33-byte) point. */
  public static byte[] publicKey(byte[] privateKey) {
    ECPrivateKeyParameters sk = privateParams(privateKey);
    return sk.getParameters().getG().multiply(sk.getD()).normalize().getEncoded(true);
  }

  /** Seals {@code plaintext} to {@code recipient}, binding {@code info} and {@code aad}. */
  public static Sealed seal(byte[] recipient, byte[] info, byte[] aad, byte[] plaintext) {
    return seal(recipient, info, aad, plaintext, null);
  }

  /** As {@link #seal}, with a fixed ephemeral key pair (for tests against published vectors). */
  static Sealed seal(
      byte[] recipient,
      byte[] info,
      byte[] aad,
      byte[] plaintext,
      AsymmetricCipherKeyPair ephemeral) {
    HPKE h = suite();
    AsymmetricKeyParameter pkR = publicParams(h, recipient);
    HPKEContextWithEncapsulation ctx =
        ephemeral == null ? h.setupBaseS(pkR, info) : h.setupBaseS(pkR, info, ephemeral);
    try {
      return new Sealed(ctx.getEncapsulation(), ctx.seal(aad, plaintext));
    } catch (InvalidCipherTextException e) {
      throw new IllegalStateException("AES-GCM refused to seal", e);
    }
  }

  /**
   * Opens what {@link #seal} made.
   *
   * @throws SealException when the key, {@code info}, {@code aad}, or the bytes are not the ones
   *     sealed; the message says no more than that
   */
  public static byte[] open(
      byte[] privateKey, byte[] enc, byte[] ciphertext, byte[] info, byte[] aad)
      throws SealException {
    HPKE h = suite();
    AsymmetricCipherKeyPair kp = keyPair(h, privateKey);
    try {
      HPKEContext ctx = h.setupBaseR(enc, kp, info);
      return ctx.open(aad, ciphertext);
    } catch (InvalidCipherTextException | IllegalArgumentException | IllegalStateException e) {
      throw new SealException("does not open with this runner's key for what it is bound to");
    }
  }

  static AsymmetricCipherKeyPair keyPair(HPKE h, byte[] privateKey) {
    byte[] pub = uncompressed(publicKey(privateKey));
    return h.deserializePrivateKey(privateKey, pub);
  }

  private static ECPrivateKeyParameters privateParams(byte[] privateKey) {
    if (privateKey.length != 32) {
      throw new IllegalArgumentException("a P-256 private key is 32 bytes");
    }
    HPKE h = suite();
    // BouncyCastle needs the public half beside the scalar; the generator gives the curve.
    AsymmetricCipherKeyPair any = h.deriveKeyPair(new byte[32]);
    ECPrivateKeyParameters p = (ECPrivateKeyParameters) any.getPrivate();
    return new ECPrivateKeyParameters(new java.math.BigInteger(1, privateKey), p.getParameters());
  }

  private static AsymmetricKeyParameter publicParams(HPKE h, byte[] point) {
    try {
      return h.deserializePublicKey(uncompressed(point));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a P-256 public key", e);
    }
  }

  /** The uncompressed form of a point given either way. */
  static byte[] uncompressed(byte[] point) {
    if (point.length == 65) {
      return point;
    }
    HPKE h = suite();
    ECPublicKeyParameters any = (ECPublicKeyParameters) h.deriveKeyPair(new byte[32]).getPublic();
    try {
      return any.getParameters().getCurve().decodePoint(point).getEncoded(false);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a P-256 point", e);
    }
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }
}
