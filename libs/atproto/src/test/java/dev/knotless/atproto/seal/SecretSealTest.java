package dev.knotless.atproto.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.identity.P256DidKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class SecretSealTest {

  private static final byte[] KEY = Hpke.generatePrivateKey();
  private static final String DID_KEY = P256DidKey.encode(Hpke.publicKey(KEY));
  private static final SealBinding BOUND =
      new SealBinding(
          "did:plc:owner", "3lrepokey", "did:plc:runner", "DEPLOY_TOKEN", List.of("main"));

  @Test
  void aValueSealedToTheRunnersKeyOpensWithItsPrivateKeyForTheSameBinding() throws Exception {
    SecretSeal.Sealed s = SecretSeal.seal(DID_KEY, BOUND, "dt_0123456789");
    assertEquals(DID_KEY, s.recipient());
    assertFalse(s.ciphertext().contains("dt_0123456789"));
    assertEquals("dt_0123456789", SecretSeal.open(KEY, BOUND, s));
  }

  @Test
  void theSameCiphertextDoesNotOpenForAnotherRepositoryNameRunnerOwnerOrRefs() {
    SecretSeal.Sealed s = SecretSeal.seal(DID_KEY, BOUND, "dt_0123456789");
    List<SealBinding> others =
        List.of(
            new SealBinding(
                "did:plc:owner", "3lotherkey", "did:plc:runner", "DEPLOY_TOKEN", List.of("main")),
            new SealBinding(
                "did:plc:owner", "3lrepokey", "did:plc:runner", "OTHER", List.of("main")),
            new SealBinding(
                "did:plc:owner", "3lrepokey", "did:plc:other", "DEPLOY_TOKEN", List.of("main")),
            new SealBinding(
                "did:plc:mallory", "3lrepokey", "did:plc:runner", "DEPLOY_TOKEN", List.of("main")),
            new SealBinding(
                "did:plc:owner", "3lrepokey", "did:plc:runner", "DEPLOY_TOKEN", List.of()),
            new SealBinding(
                "did:plc:owner",
                "3lrepokey",
                "did:plc:runner",
                "DEPLOY_TOKEN",
                List.of("main", "*")));
    for (SealBinding b : others) {
      SealException e =
          assertThrows(SealException.class, () -> SecretSeal.open(KEY, b, s), b.toString());
      assertFalse(e.getMessage().contains("dt_"));
    }
  }

  @Test
  void aValueSealedToAnotherKeyDoesNotOpen() {
    byte[] other = Hpke.generatePrivateKey();
    SecretSeal.Sealed s =
        SecretSeal.seal(P256DidKey.encode(Hpke.publicKey(other)), BOUND, "dt_0123456789");
    assertThrows(SealException.class, () -> SecretSeal.open(KEY, BOUND, s));
  }

  @Test
  void damagedBytesDoNotOpen() {
    SecretSeal.Sealed s = SecretSeal.seal(DID_KEY, BOUND, "dt_0123456789");
    char[] c = s.ciphertext().toCharArray();
    c[3] = c[3] == 'A' ? 'B' : 'A';
    assertThrows(
        SealException.class,
        () -> SecretSeal.open(KEY, BOUND, new SecretSeal.Sealed(DID_KEY, s.enc(), new String(c))));
    assertThrows(
        SealException.class,
        () -> SecretSeal.open(KEY, BOUND, new SecretSeal.Sealed(DID_KEY, "AAAA", s.ciphertext())));
    assertThrows(
        SealException.class,
        () -> SecretSeal.open(KEY, BOUND, new SecretSeal.Sealed(DID_KEY, "!!", s.ciphertext())));
  }

  @Test
  void bindingsThatDifferOnlyInWhereAFieldEndsEncodeDifferently() {
    SealBinding a = new SealBinding("did:plc:a", "bc", "did:plc:r", "N", List.of());
    SealBinding b = new SealBinding("did:plc:ab", "c", "did:plc:r", "N", List.of());
    assertFalse(java.util.Arrays.equals(a.associatedData(), b.associatedData()));
  }

  @Test
  void aDidKeyRoundTripsAndAnythingElseIsRefusedWithAReason() {
    byte[] point = Hpke.publicKey(KEY);
    assertTrue(DID_KEY.startsWith("did:key:zDn"), DID_KEY);
    assertEquals(
        java.util.HexFormat.of().formatHex(point),
        java.util.HexFormat.of().formatHex(P256DidKey.decode(DID_KEY)));
    assertThrows(IllegalArgumentException.class, () -> P256DidKey.decode("did:plc:abc"));
    // a secp256k1 did:key (multicodec 0xe7) is no P-256 key
    assertThrows(
        IllegalArgumentException.class,
        () -> P256DidKey.decode("did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"));
  }
}
