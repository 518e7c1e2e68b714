package dev.knotless.atproto.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BoundedBodies;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.ServiceAddresses;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The requests an OAuth client makes of an authorization server and a PDS's metadata: GETs of JSON
 * and form POSTs carrying a DPoP proof, each address checked by {@link ServiceAddresses} first,
 * each reply bounded in size and time. A POST the server refuses with {@code use_dpop_nonce} is
 * proved again once with the nonce it gave. Thread-safe.
 */
final class OAuthHttp {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final long MAX_BYTES = 1 << 20;

  private final HttpClient http;
  private final ServiceAddresses addresses;

  OAuthHttp(HttpClient http, ServiceAddresses addresses) {
    this.http = http;
    this.addresses = addresses;
  }

  /** The JSON at {@code uri}, asked {@code why} (named in errors). */
  JsonNode getJson(URI uri, String why) throws OAuthException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json").GET();
    HttpResponse<byte[]> r = send(uri, b, why);
    if (r.statusCode() != 200) {
      throw new OAuthException(
          uri + " answered " + r.statusCode() + " when asked " + why + detail(r), null, null);
    }
    return json(r, uri, why);
  }

  /**
   * A form POST with a DPoP proof from {@code dpop}; the JSON reply when it is a success.
   *
   * @throws OAuthException naming the server's error code and description otherwise
   */
  JsonNode postForm(URI uri, Map<String, String> form, DpopKey dpop, String why)
      throws OAuthException {
    StringJoiner body = new StringJoiner("&");
    form.forEach(
        (k, v) -> {
          if (v != null) {
            body.add(enc(k) + "=" + enc(v));
          }
        });
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    HttpResponse<byte[]> r = null;
    for (int attempt = 0; attempt < 2; attempt++) {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(uri)
              .timeout(TIMEOUT)
              .header("Content-Type", "application/x-www-form-urlencoded")
              .header("Accept", "application/json")
              .header("DPoP", dpop.proof("POST", uri, null))
              .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
      r = send(uri, b, why);
      r.headers().firstValue("DPoP-Nonce").ifPresent(n -> dpop.nonce(uri, n));
      if (r.statusCode() / 100 == 2) {
        return r.body().length == 0 ? Json.object() : json(r, uri, why);
      }
      if (!"use_dpop_nonce".equals(errorCode(r))
          || r.headers().firstValue("DPoP-Nonce").isEmpty()) {
        break;
      }
    }
    String code = errorCode(r);
    throw new OAuthException(
        uri + " refused " + why + " (" + r.statusCode() + ")" + detail(r), code, null);
  }

  private HttpResponse<byte[]> send(URI uri, HttpRequest.Builder b, String why)
      throws OAuthException {
    try {
      addresses.check(uri, "the OAuth server asked " + why);
      return BoundedBodies.send(http, b.build(), BoundedBodies.ofByteArray(MAX_BYTES), TIMEOUT);
    } catch (IOException e) {
      throw new OAuthException(
          "could not reach " + uri + " to ask " + why + ": " + e.getMessage(), null, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OAuthException("interrupted while asking " + uri + " " + why, null, e);
    }
  }

  private static JsonNode json(HttpResponse<byte[]> r, URI uri, String why) throws OAuthException {
    try {
      JsonNode n = Json.read(r.body());
      if (n == null || !n.isObject()) {
        throw new IOException("not a JSON object");
      }
      return n;
    } catch (IOException e) {
      throw new OAuthException(uri + " answered " + why + " with something not JSON", null, e);
    }
  }

  private static String errorCode(HttpResponse<byte[]> r) {
    try {
      JsonNode n = Json.read(r.body());
      return n != null && n.path("error").isTextual() ? n.get("error").asText() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** ": <error>: <description>" from an OAuth error reply, cut short and printable, or "". */
  private static String detail(HttpResponse<byte[]> r) {
    try {
      JsonNode n = Json.read(r.body());
      if (n == null || !n.isObject()) {
        return "";
      }
      String d = n.path("error").asText("") + ": " + n.path("error_description").asText("");
      d = d.replaceAll("\\p{Cntrl}", " ").strip();
      return d.equals(":") ? "" : ": " + (d.length() > 300 ? d.substring(0, 300) + "…" : d);
    } catch (IOException e) {
      return "";
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
