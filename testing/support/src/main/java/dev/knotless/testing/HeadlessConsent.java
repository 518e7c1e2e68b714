package dev.knotless.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a person does on the reference PDS's OAuth pages, done over HTTP with no browser: opens the
 * authorization page (which sets the device and CSRF cookies), signs in with the account's password
 * and accepts, through the same JSON API the page's own script calls ({@code
 * /@atproto/oauth-provider/~api/sign-in} and {@code /consent}), then follows the PDS's redirect to
 * the client's loopback address with the code. It sends the headers a browser would (same-origin
 * fetch, the authorization page as referrer, the CSRF token back as a header) and keeps cookies
 * itself, since the PDS marks them secure on plain HTTP. {@link ConsentBrowser} is the real-browser
 * check of the same pages; this is for tests that only need a session, in a fraction of the time.
 * Each call is its own device: nothing carries over from one login to the next.
 */
public final class HeadlessConsent {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String API = "/@atproto/oauth-provider/~api";
  private static final ObjectMapper JSON = new ObjectMapper();

  private HeadlessConsent() {}

  /**
   * Signs in at {@code authorizeUrl} as {@code username} (a handle) with {@code password}, accepts
   * the request, and delivers the code to the client's redirect address, which must start with
   * {@code redirectPrefix}.
   *
   * @throws IllegalStateException naming the step that failed and what the PDS said
   */
  public static void consent(
      URI authorizeUrl, String username, String password, String redirectPrefix) {
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(WAIT)
            .build();
    Map<String, String> cookies = new LinkedHashMap<>();
    URI issuer = authorizeUrl.resolve("/");
    String origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
    HttpResponse<String> page =
        send(
            http,
            cookies,
            HttpRequest.newBuilder(authorizeUrl)
                .header("sec-fetch-site", "none")
                .header("sec-fetch-mode", "navigate")
                .header("sec-fetch-dest", "document")
                .GET(),
            "the authorization page");
    expect(page, 200, "the authorization page");
    String did = signIn(http, cookies, authorizeUrl, origin, username, password);
    JsonNode accepted =
        api(
            http,
            cookies,
            authorizeUrl,
            origin,
            "/consent",
            JSON.createObjectNode().put("did", did),
            "consent");
    URI redirect = URI.create(accepted.path("url").asText());
    HttpResponse<String> hop =
        send(
            http,
            cookies,
            HttpRequest.newBuilder(redirect)
                .header("sec-fetch-site", "same-origin")
                .header("sec-fetch-mode", "navigate")
                .header("sec-fetch-dest", "document")
                .header("referer", authorizeUrl.toString())
                .GET(),
            "the redirect after consent");
    String location = hop.headers().firstValue("location").orElse("");
    if (hop.statusCode() / 100 != 3 || !location.startsWith(redirectPrefix)) {
      throw new IllegalStateException(
          "the PDS did not send the code to "
              + redirectPrefix
              + ": "
              + hop.statusCode()
              + " "
              + location);
    }
    HttpResponse<String> delivered =
        send(http, cookies, HttpRequest.newBuilder(URI.create(location)).GET(), "the client");
    if (delivered.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          "the client's redirect address answered " + delivered.statusCode());
    }
  }

  private static String signIn(
      HttpClient http,
      Map<String, String> cookies,
      URI authorizeUrl,
      String origin,
      String login,
      String password) {
    var body =
        JSON.createObjectNode()
            .put("locale", "en")
            .put("username", login)
            .put("password", password)
            .put("remember", false);
    JsonNode r = api(http, cookies, authorizeUrl, origin, "/sign-in", body, "sign-in");
    String did = r.path("account").path("sub").asText("");
    if (did.isEmpty()) {
      did = r.path("account").path("did").asText("");
    }
    if (did.isEmpty()) {
      throw new IllegalStateException("sign-in named no account: " + r);
    }
    String ephemeral = r.path("ephemeralToken").asText("");
    if (!ephemeral.isEmpty()) {
      cookies.put("\0bearer", ephemeral);
    }
    return did;
  }

  private static JsonNode api(
      HttpClient http,
      Map<String, String> cookies,
      URI authorizeUrl,
      String origin,
      String endpoint,
      JsonNode body,
      String step) {
    String csrf = cookies.getOrDefault("csrf-token", "");
    HttpRequest.Builder b =
        HttpRequest.newBuilder(authorizeUrl.resolve(API + endpoint))
            .header("content-type", "application/json")
            .header("origin", origin)
            .header("referer", authorizeUrl.toString())
            .header("sec-fetch-site", "same-origin")
            .header("sec-fetch-mode", "same-origin")
            .header("sec-fetch-dest", "empty")
            .header("x-csrf-token", csrf)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    String bearer = cookies.get("\0bearer");
    if (bearer != null && endpoint.equals("/consent")) {
      b.header("authorization", "Bearer " + bearer);
    }
    HttpResponse<String> r = send(http, cookies, b, step);
    expect(r, 200, step);
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new IllegalStateException(step + " answered no JSON: " + r.body(), e);
    }
  }

  private static HttpResponse<String> send(
      HttpClient http, Map<String, String> cookies, HttpRequest.Builder b, String step) {
    String jar =
        cookies.entrySet().stream()
            .filter(e -> !e.getKey().startsWith("\0"))
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("; "));
    if (!jar.isEmpty()) {
      b.header("cookie", jar);
    }
    HttpResponse<String> r;
    try {
      r = http.send(b.timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(step + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(step + " interrupted", e);
    }
    for (String set : r.headers().allValues("set-cookie")) {
      String pair = set.split(";", 2)[0];
      int eq = pair.indexOf('=');
      if (eq > 0) {
        String name = pair.substring(0, eq).strip();
        String value = pair.substring(eq + 1).strip();
        if (value.isEmpty()) {
          cookies.remove(name);
        } else {
          cookies.put(name, value);
        }
      }
    }
    return r;
  }

  private static void expect(HttpResponse<String> r, int status, String step) {
    if (r.statusCode() != status) {
      String body = r.body();
      throw new IllegalStateException(
          step
              + " answered "
              + r.statusCode()
              + ": "
              + (body.length() > 300 ? body.substring(0, 300) : body));
    }
  }
}
