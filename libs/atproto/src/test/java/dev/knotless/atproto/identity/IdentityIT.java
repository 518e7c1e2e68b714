package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithPds
class IdentityIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path cacheDir;

  @Test
  void aTestHandleResolvesThroughTheConfiguredResolverAndThePlc(PdsInstance pds) throws Exception {
    Account account = pds.createAccount("ident");
    IdentityResolver resolver = IdentityResolver.fromEnvironment(pds.environment(), null);

    Identity identity = resolver.resolve(account.handle());

    assertEquals(account.did(), identity.did());
    assertEquals(account.handle(), identity.handle());
    assertEquals(URI.create("http://localhost:" + pds.pdsUrl().getPort()), identity.pds());
  }

  @Test
  void aDidResolvesToItsPdsAndItsVerifiedHandle(PdsInstance pds) throws Exception {
    Account account = pds.createAccount("bydid");
    IdentityResolver resolver = IdentityResolver.fromEnvironment(pds.environment(), null);

    Identity identity = resolver.resolve(account.did());

    assertEquals(account.handle(), identity.handle());
    assertEquals(pds.pdsUrl().getPort(), identity.pds().getPort());
  }

  @Test
  void theSigningKeyMatchesWhatThePlcReportsAsADidKey(PdsInstance pds) throws Exception {
    Account account = pds.createAccount("keyed");
    HttpClient http = Fetch.defaultClient();
    DidDocument doc = DidResolver.fromEnvironment(pds.environment(), http).resolve(account.did());

    HttpResponse<String> data =
        http.send(
            HttpRequest.newBuilder(URI.create(pds.plcUrl() + "/" + account.did() + "/data"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode plcData = JSON.readTree(data.body());
    assertEquals(plcData.path("verificationMethods").path("atproto").asText(), doc.signingKey());
  }

  @Test
  void aHandleNoOneHasIsReportedByName(PdsInstance pds) {
    IdentityResolver resolver = IdentityResolver.fromEnvironment(pds.environment(), null);

    IdentityException e =
        assertThrows(IdentityException.class, () -> resolver.resolve("nobody42.test"));
    assertTrue(
        e.getMessage().startsWith("handle nobody42.test does not resolve at "), e.getMessage());
    assertTrue(e.getMessage().contains("HandleNotFound"), e.getMessage());
  }

  @Test
  void anUnregisteredDidIsReportedByName(PdsInstance pds) {
    IdentityResolver resolver = IdentityResolver.fromEnvironment(pds.environment(), null);

    IdentityException e =
        assertThrows(
            IdentityException.class, () -> resolver.resolve("did:plc:aaaaaaaaaaaaaaaaaaaaaaaa"));
    assertTrue(
        e.getMessage().startsWith("did:plc:aaaaaaaaaaaaaaaaaaaaaaaa is not registered"),
        e.getMessage());
  }

  @Test
  void aSecondResolveWithinTheHourAsksNoOne(PdsInstance pds) throws Exception {
    Account account = pds.createAccount("cached");
    try (CountingProxy pdsProxy = CountingProxy.start(pds.pdsUrl());
        CountingProxy plcProxy = CountingProxy.start(pds.plcUrl())) {
      Map<String, String> env =
          Map.of(
              "KNOTLESS_HANDLE_RESOLVER", pdsProxy.url().toString(),
              "KNOTLESS_PLC_URL", plcProxy.url().toString());
      LocalCache cache = new LocalCache(cacheDir, Clock.systemUTC());

      Identity first = IdentityResolver.fromEnvironment(env, cache).resolve(account.handle());
      assertEquals(1, pdsProxy.requests("com.atproto.identity.resolveHandle"));
      assertEquals(1, plcProxy.requests());

      // A new resolver, as in another process, finds the same answer in the cache files.
      Identity second = IdentityResolver.fromEnvironment(env, cache).resolve(account.handle());
      Identity byDid = IdentityResolver.fromEnvironment(env, cache).resolve(account.did());
      assertEquals(first, second);
      assertEquals(first, byDid);
      assertEquals(1, pdsProxy.requests());
      assertEquals(1, plcProxy.requests());
    }
  }

  @Test
  void aClaimedHandleThatDoesNotResolveBackIsNotReportedAsVerified(PdsInstance pds)
      throws Exception {
    // bob's document claims bob.test, but this resolver's handle server answers nothing.
    Account bob = pds.account("bob");
    Map<String, String> env =
        Map.of(
            "KNOTLESS_PLC_URL",
            pds.plcUrl().toString(),
            "KNOTLESS_HANDLE_RESOLVER",
            "http://127.0.0.1:9");

    Identity identity = IdentityResolver.fromEnvironment(env, null).resolve(bob.did());

    assertNull(identity.handle());
    assertEquals(bob.did(), identity.displayName());
  }
}
