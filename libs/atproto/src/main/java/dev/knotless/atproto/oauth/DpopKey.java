package dev.knotless.atproto.oauth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.knotless.atproto.DpopProofs;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.ParseException;
import java.time.Clock;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One session's DPoP key (an ES256 key made for it at login and kept with it), the proofs it signs,
 * and the newest nonce each server (by origin) gave. Proofs are made with Nimbus JOSE+JWT. The
 * private key is a secret: {@link #toString()} names only its thumbprint. Thread-safe.
 */
public final class DpopKey implements DpopProofs {

  private final ECKey key;
  private final Clock clock;
  private final Map<String, String> nonces = new ConcurrentHashMap<>();

  private DpopKey(ECKey key, Clock clock) {
    this.key = key;
    this.clock = clock;
  }

  /** A new P-256 key. */
  public static DpopKey generate() {
    try {
      return new DpopKey(new ECKeyGenerator(Curve.P_256).generate(), Clock.systemUTC());
    } catch (JOSEException e) {
      throw new IllegalStateException("no P-256 key could be made: " + e.getMessage(), e);
    }
  }

  /** The key saved by {@link #toJson()}. */
  public static DpopKey fromJson(String jwk) throws ParseException {
    ECKey k = ECKey.parse(jwk);
    if (!k.isPrivate() || !Curve.P_256.equals(k.getCurve())) {
      throw new ParseException("the saved DPoP key is not a private P-256 key", 0);
    }
    return new DpopKey(k, Clock.systemUTC());
  }

  /** The private key as a JWK, to be saved with the session (a secret). */
  public String toJson() {
    return key.toJSONString();
  }

  /** The key's thumbprint (RFC 7638), which the server binds the tokens to. */
  public String thumbprint() {
    try {
      return key.computeThumbprint().toString();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String proof(String htm, URI htu, String accessToken) {
    JWTClaimsSet.Builder claims =
        new JWTClaimsSet.Builder()
            .jwtID(UUID.randomUUID().toString())
            .claim("htm", htm)
            .claim("htu", target(htu))
            .issueTime(Date.from(clock.instant()));
    String nonce = nonces.get(origin(htu));
    if (nonce != null) {
      claims.claim("nonce", nonce);
    }
    if (accessToken != null) {
      claims.claim("ath", sha256(accessToken));
    }
    JWSHeader header =
        new JWSHeader.Builder(JWSAlgorithm.ES256)
            .type(new JOSEObjectType("dpop+jwt"))
            .jwk(key.toPublicJWK())
            .build();
    SignedJWT jwt = new SignedJWT(header, claims.build());
    try {
      jwt.sign(new ECDSASigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException("could not sign a DPoP proof: " + e.getMessage(), e);
    }
    return jwt.serialize();
  }

  @Override
  public void nonce(URI at, String nonce) {
    if (nonce != null && !nonce.isBlank() && nonce.length() <= 512) {
      nonces.put(origin(at), nonce);
    }
  }

  /** The nonce remembered for the server at {@code at}, or null. */
  String nonceFor(URI at) {
    return nonces.get(origin(at));
  }

  /** The base64url SHA-256 of {@code s}: a proof's {@code ath}, and PKCE's S256 challenge. */
  static String sha256(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String target(URI u) {
    return u.getScheme()
        + "://"
        + u.getRawAuthority()
        + (u.getRawPath() == null ? "" : u.getRawPath());
  }

  private static String origin(URI u) {
    return (u.getScheme() + "://" + u.getRawAuthority()).toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public String toString() {
    return "DpopKey[" + thumbprint() + "]";
  }
}
