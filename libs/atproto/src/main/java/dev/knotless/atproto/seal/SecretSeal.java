package dev.knotless.atproto.seal;

import dev.knotless.atproto.identity.P256DidKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Sealing a secret's value to a runner's published key, and opening it with the runner's private
 * key: HPKE base mode ({@link Hpke}) with the {@link SealBinding} as associated data. Stateless and
 * thread-safe.
 */
public final class SecretSeal {

  /**
   * A sealed value as it travels: the did:key it was sealed to, the encapsulated key and the
   * ciphertext, both base64. Holds no plaintext.
   */
  public record Sealed(String recipient, String enc, String ciphertext) {}

  private SecretSeal() {}

  /**
   * Seals {@code value} to the runner key {@code recipientDidKey} for {@code binding}.
   *
   * @throws IllegalArgumentException when the did:key is no P-256 key
   */
  public static Sealed seal(String recipientDidKey, SealBinding binding, String value) {
    byte[] point = P256DidKey.decode(recipientDidKey);
    Hpke.Sealed s =
        Hpke.seal(
            point,
            SealBinding.INFO,
            binding.associatedData(),
            value.getBytes(StandardCharsets.UTF_8));
    Base64.Encoder b64 = Base64.getEncoder();
    return new Sealed(
        recipientDidKey, b64.encodeToString(s.enc()), b64.encodeToString(s.ciphertext()));
  }

  /**
   * Opens a sealed value with {@code privateKey} (32 bytes) for {@code binding}.
   *
   * @throws SealException when it was sealed to another key or for another binding, or the bytes
   *     are damaged; the message never holds a value
   */
  public static String open(byte[] privateKey, SealBinding binding, Sealed sealed)
      throws SealException {
    byte[] enc;
    byte[] ct;
    try {
      enc = Base64.getDecoder().decode(sealed.enc());
      ct = Base64.getDecoder().decode(sealed.ciphertext());
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new SealException("is not base64");
    }
    byte[] pt = Hpke.open(privateKey, enc, ct, SealBinding.INFO, binding.associatedData());
    return new String(pt, StandardCharsets.UTF_8);
  }
}
