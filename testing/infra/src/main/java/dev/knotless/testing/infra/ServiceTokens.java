package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.identity.IdentityException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;

/**
 * Checks an atproto service token (a JWT from {@code com.atproto.server.getServiceAuth}) as an
 * appview does: signed (ES256K or ES256) by the {@code #atproto} key of the DID in {@code iss}, as
 * its DID document in the PLC says, for this service ({@code aud}) and this method ({@code lxm}),
 * and not expired. Thread-safe.
 */
final class ServiceTokens {

  /** A token that does not pass; the message says why. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ALPHABET =
      "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

  private final DidResolver dids;
  private final String audience;
  private final Clock clock;

  ServiceTokens(DidResolver dids, String audience, Clock clock) {
    this.dids = dids;
    this.audience = audience;
    this.clock = clock;
  }

  /**
   * The DID a bearer token speaks for.
   *
   * @throws Refused when there is no token or it does not pass
   */
  String verify(String authorization, String method) throws Refused {
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      throw new Refused("a service token is required");
    }
    String[] parts = authorization.substring("Bearer ".length()).strip().split("\\.");
    if (parts.length != 3) {
      throw new Refused("the token is not a JWT");
    }
    JsonNode header;
    JsonNode claims;
    byte[] sig;
    try {
      Base64.Decoder b64 = Base64.getUrlDecoder();
      header = JSON.readTree(b64.decode(parts[0]));
      claims = JSON.readTree(b64.decode(parts[1]));
      sig = b64.decode(parts[2]);
    } catch (Exception e) {
      throw new Refused("the token does not decode");
    }
    String iss = claims.path("iss").asText("");
    int hash = iss.indexOf('#');
    String did = hash < 0 ? iss : iss.substring(0, hash);
    if (!audience.equals(claims.path("aud").asText())) {
      throw new Refused("the token is for another service");
    }
    if (!method.equals(claims.path("lxm").asText())) {
      throw new Refused("the token is for another method");
    }
    if (claims.path("exp").asLong(0) < clock.instant().getEpochSecond()) {
      throw new Refused("the token has expired");
    }
    String didKey;
    try {
      didKey = dids.resolve(did).signingKey();
    } catch (IdentityException e) {
      throw new Refused("the token's issuer does not resolve: " + e.getMessage());
    }
    String signed = parts[0] + "." + parts[1];
    if (!verifies(header.path("alg").asText(""), didKey, signed, sig)) {
      throw new Refused("the token's signature is not " + did + "'s");
    }
    return did;
  }

  private static boolean verifies(String alg, String didKey, String signed, byte[] sig) {
    byte[] mb = base58(didKey.substring("did:key:z".length()));
    String curve;
    if (mb[0] == (byte) 0xe7 && mb[1] == 0x01 && alg.equals("ES256K")) {
      curve = "secp256k1";
    } else if (mb[0] == (byte) 0x80 && mb[1] == 0x24 && alg.equals("ES256")) {
      curve = "secp256r1";
    } else {
      return false;
    }
    if (sig.length != 64) {
      return false;
    }
    X9ECParameters x9 = CustomNamedCurves.getByName(curve);
    ECDomainParameters domain = new ECDomainParameters(x9);
    ECPublicKeyParameters key =
        new ECPublicKeyParameters(
            x9.getCurve().decodePoint(Arrays.copyOfRange(mb, 2, mb.length)), domain);
    ECDSASigner signer = new ECDSASigner();
    signer.init(false, key);
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(signed.getBytes(StandardCharsets.US_ASCII));
      return signer.verifySignature(
          digest,
          new BigInteger(1, Arrays.copyOfRange(sig, 0, 32)),
          new BigInteger(1, Arrays.copyOfRange(sig, 32, 64)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] base58(String s) {
    BigInteger n = BigInteger.ZERO;
    for (char c : s.toCharArray()) {
      n = n.multiply(BigInteger.valueOf(58)).add(BigInteger.valueOf(ALPHABET.indexOf(c)));
    }
    byte[] b = n.toByteArray();
    return b[0] == 0 ? Arrays.copyOfRange(b, 1, b.length) : b;
  }
}
