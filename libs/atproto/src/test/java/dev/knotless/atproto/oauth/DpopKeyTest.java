package dev.knotless.atproto.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.text.ParseException;
import org.junit.jupiter.api.Test;

class DpopKeyTest {

  @Test
  void aProofIsSignedByTheSessionKeyAndNamesTheRequestWithoutItsQuery() throws Exception {
    DpopKey key = DpopKey.generate();
    String proof =
        key.proof("POST", URI.create("https://pds.example/xrpc/m?x=1#f"), "the-access-token");
    SignedJWT jwt = SignedJWT.parse(proof);
    assertEquals("dpop+jwt", jwt.getHeader().getType().toString());
    ECKey shown = (ECKey) jwt.getHeader().getJWK();
    assertFalse(shown.isPrivate(), "the proof carries only the public key");
    assertTrue(jwt.verify(new ECDSAVerifier(shown)));
    assertEquals(key.thumbprint(), shown.computeThumbprint().toString());
    assertEquals("POST", jwt.getJWTClaimsSet().getStringClaim("htm"));
    assertEquals("https://pds.example/xrpc/m", jwt.getJWTClaimsSet().getStringClaim("htu"));
    assertEquals(DpopKey.sha256("the-access-token"), jwt.getJWTClaimsSet().getStringClaim("ath"));
    assertNull(jwt.getJWTClaimsSet().getStringClaim("nonce"), "no nonce given yet");
    String other = key.proof("POST", URI.create("https://pds.example/xrpc/m"), null);
    assertFalse(
        SignedJWT.parse(other)
            .getJWTClaimsSet()
            .getJWTID()
            .equals(jwt.getJWTClaimsSet().getJWTID()),
        "every proof has its own jti");
  }

  @Test
  void eachServerGetsTheNonceItGaveLast() throws Exception {
    DpopKey key = DpopKey.generate();
    key.nonce(URI.create("https://as.example/oauth/par"), "n1");
    key.nonce(URI.create("https://PDS.example/xrpc/a"), "n2");
    String toAs = key.proof("POST", URI.create("https://as.example/oauth/token"), null);
    String toPds = key.proof("GET", URI.create("https://pds.example/xrpc/b"), "t");
    assertEquals("n1", SignedJWT.parse(toAs).getJWTClaimsSet().getStringClaim("nonce"));
    assertEquals("n2", SignedJWT.parse(toPds).getJWTClaimsSet().getStringClaim("nonce"));
  }

  @Test
  void theKeyIsSavedAndReadBackAndAPublicKeyIsRefused() throws Exception {
    DpopKey key = DpopKey.generate();
    DpopKey back = DpopKey.fromJson(key.toJson());
    assertEquals(key.thumbprint(), back.thumbprint());
    assertFalse(key.toString().contains("\"d\""), "toString names no private part");
    String publicOnly = ECKey.parse(key.toJson()).toPublicJWK().toJSONString();
    assertThrows(ParseException.class, () -> DpopKey.fromJson(publicOnly));
  }
}
