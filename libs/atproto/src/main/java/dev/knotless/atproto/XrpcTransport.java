package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.StringJoiner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends XRPC requests and turns failures into {@link XrpcException}s. No session logic lives here:
 * the caller passes the token, a bearer one or one bound to a DPoP key, whose proof this signs for
 * each request and signs again once when the server asks for a new nonce. Thread-safe.
 */
final class XrpcTransport {

  private static final Logger LOG = LoggerFactory.getLogger(XrpcTransport.class);
  private static final Duration SLOW = Duration.ofSeconds(5);

  private final URI service;
  private final HttpClient http;
  private final Duration timeout;
  private final XrpcObserver observer;
  private final ServiceAddresses addresses;
  private final Duration deadline;

  XrpcTransport(
      URI service,
      HttpClient http,
      Duration timeout,
      XrpcObserver observer,
      ServiceAddresses addresses,
      Duration deadline) {
    String s = service.toString();
    this.service = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    this.http = http;
    this.timeout = timeout;
    this.observer = observer;
    this.addresses = addresses;
    this.deadline = deadline;
  }

  /**
   * Whether {@code method} waits by design before it answers (an {@code await…} long poll, such as
   * {@code dev.knotless.awaitSpaceWrites}), so that taking long is not slow.
   */
  static boolean longPoll(String method) {
    return method.substring(method.lastIndexOf('.') + 1).startsWith("await");
  }

  URI service() {
    return service;
  }

  /** A GET with query parameters; the body as bytes. */
  HttpResponse<byte[]> get(String method, Map<String, String> params, AccessToken token)
      throws XrpcException {
    return get(method, params, token, BoundedBodies.XRPC_REPLY_BYTES);
  }

  /** As {@link #get(String, Map, String)}, reading at most {@code limit} bytes of the body. */
  HttpResponse<byte[]> get(String method, Map<String, String> params, AccessToken token, long limit)
      throws XrpcException {
    return get(method, params, token, BoundedBodies.ofByteArray(limit));
  }

  /** As {@link #get(String, Map, String)}, the body read by {@code handler}. */
  HttpResponse<byte[]> get(
      String method,
      Map<String, String> params,
      AccessToken token,
      HttpResponse.BodyHandler<byte[]> handler)
      throws XrpcException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(method, params)).GET();
    return send(method, b, token, handler);
  }

  /** A POST with a body of the given content type. */
  HttpResponse<byte[]> post(String method, byte[] body, String contentType, AccessToken token)
      throws XrpcException {
    return post(method, body, contentType, token, null);
  }

  /**
   * As {@link #post(String, byte[], String, String)}, running {@code sent} (if not null) once the
   * body has gone to the connection, before the reply (with the JDK's client only).
   */
  HttpResponse<byte[]> post(
      String method, byte[] body, String contentType, AccessToken token, Runnable sent)
      throws XrpcException {
    return post(method, RequestBodies.of(body, sent), contentType, token);
  }

  /** As {@link #post}, with a body read from {@code body} as it is written (sent chunked). */
  HttpResponse<byte[]> postStreamed(
      String method, java.io.InputStream body, String contentType, AccessToken token)
      throws XrpcException {
    return post(method, RequestBodies.streamed(body), contentType, token);
  }

  private HttpResponse<byte[]> post(
      String method, HttpRequest.BodyPublisher body, String contentType, AccessToken token)
      throws XrpcException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(method, Map.of()))
            .header("Content-Type", contentType)
            .POST(body);
    return send(method, b, token, BoundedBodies.ofByteArray(BoundedBodies.XRPC_REPLY_BYTES));
  }

  static JsonNode json(String method, HttpResponse<byte[]> r) throws XrpcException {
    try {
      byte[] body = r.body();
      return body.length == 0 ? Json.object() : Json.read(body);
    } catch (IOException e) {
      throw new XrpcException(method, r.statusCode(), null, "the response is not JSON", null, e);
    }
  }

  private URI uri(String method, Map<String, String> params) {
    StringJoiner q = new StringJoiner("&", "?", "");
    q.setEmptyValue("");
    params.forEach(
        (k, v) -> {
          if (v != null) {
            q.add(enc(k) + "=" + enc(v));
          }
        });
    return URI.create(service + "/xrpc/" + method + q);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private HttpResponse<byte[]> send(
      String method,
      HttpRequest.Builder b,
      AccessToken token,
      HttpResponse.BodyHandler<byte[]> handler)
      throws XrpcException {
    b.timeout(timeout);
    if (token == null) {
      return exchange(method, b, handler);
    }
    if (!token.bound()) {
      b.header("Authorization", "Bearer " + token.token());
      return exchange(method, b, handler);
    }
    b.header("Authorization", "DPoP " + token.token());
    HttpRequest probe = b.copy().build();
    String htm = probe.method();
    b.setHeader("DPoP", token.proofs().proof(htm, probe.uri(), token.token()));
    try {
      return exchange(method, b, handler, token.proofs());
    } catch (XrpcException e) {
      if (!e.useDpopNonce()) {
        throw e;
      }
      // The server wants a nonce it has just given (remembered by exchange): prove again, once.
      b.setHeader("DPoP", token.proofs().proof(htm, probe.uri(), token.token()));
      return exchange(method, b, handler, token.proofs());
    }
  }

  private HttpResponse<byte[]> exchange(
      String method, HttpRequest.Builder b, HttpResponse.BodyHandler<byte[]> handler)
      throws XrpcException {
    return exchange(method, b, handler, null);
  }

  private HttpResponse<byte[]> exchange(
      String method,
      HttpRequest.Builder b,
      HttpResponse.BodyHandler<byte[]> handler,
      DpopProofs proofs)
      throws XrpcException {
    long start = System.nanoTime();
    HttpResponse<byte[]> r;
    try {
      // Before every request, not once: a name may answer differently from one hour to the next.
      addresses.check(service, "the XRPC service");
      r = BoundedBodies.send(http, b.build(), handler, deadline);
    } catch (IOException e) {
      observer.called(method, 0, System.nanoTime() - start);
      throw XrpcException.noStatus(method, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw XrpcException.noStatus(method, e);
    }
    long nanos = System.nanoTime() - start;
    observer.called(method, r.statusCode(), nanos);
    if (nanos > SLOW.toNanos() && !longPoll(method)) {
      LOG.warn(
          "slow PDS call: {} took {} ms (status {})", method, nanos / 1_000_000, r.statusCode());
    } else if (LOG.isDebugEnabled()) {
      LOG.debug("{} {} in {} ms", method, r.statusCode(), nanos / 1_000_000);
    }
    if (proofs != null) {
      r.headers().firstValue("DPoP-Nonce").ifPresent(n -> proofs.nonce(service, n));
    }
    if (r.statusCode() / 100 != 2) {
      throw failure(method, r);
    }
    return r;
  }

  private static XrpcException failure(String method, HttpResponse<byte[]> r) {
    String error = null;
    String message = null;
    try {
      JsonNode body = Json.read(r.body());
      if (body != null && body.isObject()) {
        error = body.path("error").isTextual() ? body.get("error").asText() : null;
        message = body.path("message").isTextual() ? body.get("message").asText() : null;
      }
    } catch (IOException e) {
      message = new String(r.body(), StandardCharsets.UTF_8).strip();
      if (message.length() > 200) {
        message = message.substring(0, 200) + "…";
      }
    }
    String challenge = r.headers().firstValue("WWW-Authenticate").orElse("");
    if (challenge.regionMatches(true, 0, "DPoP", 0, 4)) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("error=\"([^\"]*)\"").matcher(challenge);
      if (m.find() && (error == null || "use_dpop_nonce".equals(m.group(1)))) {
        error = m.group(1);
      }
    }
    Instant reset =
        r.headers().firstValue("ratelimit-reset").flatMap(XrpcTransport::epochSeconds).orElse(null);
    return new XrpcException(method, r.statusCode(), error, message, reset);
  }

  private static java.util.Optional<Instant> epochSeconds(String v) {
    try {
      long n = Long.parseLong(v.trim());
      // The reference PDS sends epoch seconds; the IETF draft sends seconds from now.
      return java.util.Optional.of(
          n < 1_000_000_000L ? Instant.now().plusSeconds(n) : Instant.ofEpochSecond(n));
    } catch (NumberFormatException e) {
      return java.util.Optional.empty();
    }
  }
}
