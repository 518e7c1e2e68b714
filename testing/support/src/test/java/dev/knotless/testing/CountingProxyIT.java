package dev.knotless.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

@WithPds
class CountingProxyIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final String DESCRIBE = "com.atproto.server.describeServer";

  @Test
  void twoCallsOneAfterTheOtherAreTwoRoundTrips(PdsInstance pds) throws Exception {
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      assertEquals(200, PdsExtensionIT.get(proxy.url(), DESCRIBE).statusCode());
      assertEquals(200, PdsExtensionIT.get(proxy.url(), DESCRIBE).statusCode());

      assertEquals(2, proxy.requests());
      assertEquals(2, proxy.roundTrips());
      assertEquals(Map.of(DESCRIBE, 2), proxy.byMethod());
    }
  }

  @Test
  void twoCallsSentTogetherAreOneRoundTripAndTwoRequests(PdsInstance pds) throws Exception {
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), Duration.ofMillis(500))) {
      List<CompletableFuture<HttpResponse<String>>> calls =
          List.of(
              HTTP.sendAsync(request(proxy, DESCRIBE), HttpResponse.BodyHandlers.ofString()),
              HTTP.sendAsync(
                  request(proxy, "com.atproto.identity.resolveHandle?handle=alice.test"),
                  HttpResponse.BodyHandlers.ofString()));
      for (CompletableFuture<HttpResponse<String>> call : calls) {
        assertEquals(200, call.get().statusCode(), call.get().body());
      }

      assertEquals(2, proxy.requests());
      assertEquals(1, proxy.roundTrips());
      assertEquals(Map.of(DESCRIBE, 1, "com.atproto.identity.resolveHandle", 1), proxy.byMethod());
      assertEquals(
          pds.account("alice").did(),
          JSON.readTree(calls.get(1).get().body()).path("did").asText());
    }
  }

  @Test
  void resetStartsTheCountsAgain(PdsInstance pds) throws Exception {
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      PdsExtensionIT.get(proxy.url(), DESCRIBE);
      proxy.reset();
      assertEquals(0, proxy.requests());
      assertEquals(0, proxy.roundTrips());
      assertEquals(Map.of(), proxy.byMethod());

      PdsExtensionIT.get(proxy.url(), DESCRIBE);
      assertEquals(1, proxy.roundTrips());
      assertEquals(1, proxy.requests(DESCRIBE));
    }
  }

  @Test
  void authorizationBodiesAndErrorsPassThrough(PdsInstance pds) throws Exception {
    Account account = pds.createAccount("proxied");
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      HttpResponse<String> refused =
          PdsExtensionIT.createSession(proxy.url(), account.handle(), "wrong");
      assertEquals(401, refused.statusCode());
      assertEquals("AuthenticationRequired", JSON.readTree(refused.body()).path("error").asText());
      assertTrue(refused.headers().firstValue("content-type").orElse("").contains("json"));

      HttpResponse<String> session =
          PdsExtensionIT.createSession(proxy.url(), account.handle(), account.password());
      String token = JSON.readTree(session.body()).path("accessJwt").asText();
      HttpResponse<String> whoAmI =
          HTTP.send(
              HttpRequest.newBuilder(proxy.url().resolve("/xrpc/com.atproto.server.getSession"))
                  .header("Authorization", "Bearer " + token)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, whoAmI.statusCode(), whoAmI.body());
      assertEquals(account.did(), JSON.readTree(whoAmI.body()).path("did").asText());
      assertEquals(3, proxy.requests());
    }
  }

  @Test
  void rateLimitHeadersReachTheClient() throws Exception {
    try (PdsInstance limited = PdsInstance.start(PdsOptions.defaults().withRateLimits(true));
        CountingProxy proxy = CountingProxy.start(limited.pdsUrl())) {
      HttpResponse<String> response = PdsExtensionIT.get(proxy.url(), DESCRIBE);

      assertEquals(200, response.statusCode());
      assertEquals("3000", response.headers().firstValue("ratelimit-limit").orElse(null));
      assertTrue(response.headers().firstValue("ratelimit-reset").isPresent());
      JsonNode body = JSON.readTree(response.body());
      assertEquals(".test", body.path("availableUserDomains").path(0).asText());
    }
  }

  private static HttpRequest request(CountingProxy proxy, String nsidAndQuery) {
    return HttpRequest.newBuilder(proxy.url().resolve("/xrpc/" + nsidAndQuery))
        .timeout(Duration.ofSeconds(30))
        .build();
  }
}
