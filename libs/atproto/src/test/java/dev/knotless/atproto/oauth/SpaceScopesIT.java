package dev.knotless.atproto.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.testing.Account;
import dev.knotless.testing.HeadlessConsent;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Service tokens for the space methods, asked of the reference PDS: an OAuth session granted
 * knotless's scopes gets one for each, as the PDS checks every token asked for against the
 * session's {@code rpc:} scopes; a session granted the scopes of before (no space methods) is
 * refused by the PDS itself; and a password session is refused by the harness's stand-in for the
 * rule a PDS with spaces will have, naming why. The login is the real OAuth flow (PAR, sign-in and
 * consent on the PDS's own API, the code exchanged with DPoP), with no browser.
 */
@WithPds
class SpaceScopesIT {
  static final String AUD = "did:web:spaces.example";
  static final List<String> SPACE_METHODS =
      KnotlessScopes.SERVICE_METHODS.stream()
          .filter(m -> m.startsWith("com.atproto.space."))
          .toList();

  static OAuthSession login(PdsInstance pds, Account a, String scope, Path cache) throws Exception {
    OAuthClient client = OAuthClient.fromEnvironment(pds.environment());
    var id =
        IdentityResolver.fromEnvironment(
                pds.environment(), new LocalCache(cache, Clock.systemUTC()))
            .resolve(a.handle());
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthClient.Pending p = client.begin(id, redirect.uri(), scope);
      HeadlessConsent.consent(
          p.authorizeUrl(), a.handle(), a.password(), redirect.uri().toString());
      return client.complete(p, redirect.await(Duration.ofSeconds(30)));
    }
  }

  static XrpcClient clientOf(PdsInstance pds, OAuthSession s) {
    XrpcClient c = XrpcClient.create(s.pds());
    List<OAuthSession> saved = new ArrayList<>();
    c.resume(
        new OAuthTokens(
            s,
            OAuthClient.fromEnvironment(pds.environment()),
            Clock.systemUTC(),
            Optional::empty,
            saved::add));
    return c;
  }

  @Test
  void anOAuthSessionWithKnotlesssScopesGetsATokenForEverySpaceMethod(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account a = pds.createAccount("spscope");
    assertTrue(SPACE_METHODS.contains("com.atproto.space.getCredential"), SPACE_METHODS.toString());
    OAuthSession s = login(pds, a, KnotlessScopes.requested(), tmp);
    assertEquals(List.of(), KnotlessScopes.missing(s.scope()), s.scope());
    XrpcClient c = clientOf(pds, s);
    for (String m : KnotlessScopes.SERVICE_METHODS) {
      assertFalse(c.serviceToken(AUD, m).isEmpty(), m);
    }
    // Not a blanket grant: a method knotless does not ask for is still refused.
    XrpcException other =
        assertThrows(
            XrpcException.class, () -> c.serviceToken(AUD, "com.atproto.space.somethingElse"));
    assertEquals(403, other.status(), other.getMessage());
  }

  @Test
  void aSessionGrantedTheScopesOfBeforeIsRefusedASpaceCredentialTokenByThePds(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account a = pds.createAccount("spold");
    String before =
        String.join(
            " ",
            KnotlessScopes.all().stream()
                .filter(x -> SPACE_METHODS.stream().noneMatch(x::contains))
                .toList());
    XrpcClient c = clientOf(pds, login(pds, a, before, tmp));
    XrpcException e =
        assertThrows(
            XrpcException.class, () -> c.serviceToken(AUD, "com.atproto.space.getCredential"));
    assertEquals(403, e.status(), e.getMessage());
    assertTrue(e.getMessage().contains("rpc:com.atproto.space.getCredential"), e.getMessage());
    assertFalse(c.serviceToken(AUD, "dev.knotless.putRunOutput").isEmpty());
  }

  @Test
  void aPasswordSessionIsRefusedEverySpaceMethodSayingWhy(PdsInstance pds) throws Exception {
    Account a = pds.createAccount("sppass");
    XrpcClient c = XrpcClient.create(pds.pdsUrl());
    c.login(a.handle(), a.password());
    for (String m : SPACE_METHODS) {
      XrpcException e = assertThrows(XrpcException.class, () -> c.serviceToken(AUD, m));
      assertEquals(403, e.status(), e.getMessage());
      assertEquals("AppPasswordSpaceRefused", e.error());
      assertTrue(e.getMessage().contains("OAuth"), e.getMessage());
    }
    // Its other service tokens are as before.
    assertFalse(c.serviceToken(AUD, "dev.knotless.putRunOutput").isEmpty());
  }
}
