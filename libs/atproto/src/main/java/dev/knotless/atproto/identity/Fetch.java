package dev.knotless.atproto.identity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.ServiceAddresses;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The GETs identity resolution makes, with errors that say what was asked of whom. */
final class Fetch {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** The longest a DID document or a handle's answer may take, body included. */
  static final Duration DEADLINE = Duration.ofSeconds(30);

  /** The most a DID document or a handle's answer may hold: they are a few hundred bytes. */
  static final long MAX_BYTES = 1 << 20;

  /** The pause before a GET whose connection was dropped unanswered is sent again. */
  static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  private Fetch() {}

  /**
   * A client for resolution: HTTP/1.1 (the reference PDS refuses h2c upgrades), no redirects, https
   * connections pinned to an address checked when they are made.
   */
  static HttpClient defaultClient() {
    return ServiceAddresses.process().client();
  }

  static HttpResponse<String> get(
      HttpClient http, ServiceAddresses addresses, URI uri, String accept, String purpose)
      throws IdentityException {
    try {
      addresses.check(uri, "the server asked to " + purpose);
    } catch (ServiceAddresses.Refused e) {
      throw new IdentityException(e.getMessage(), e);
    }
    HttpRequest request =
        HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", accept).GET().build();
    try {
      try {
        return send(http, request);
      } catch (IOException e) {
        if (!dropped(e)) {
          throw e;
        }
        // The server closed the connection unanswered, twice (the JDK's client asks again once by
        // itself): a server busy or restarting. The GET is sent once more after a short pause.
        Thread.sleep(RETRY_PAUSE.toMillis());
        return send(http, request);
      }
    } catch (IOException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof dev.knotless.atproto.BoundedBodies.TooLarge) {
          throw new IdentityException(uri + " was asked to " + purpose + ": " + t.getMessage(), e);
        }
      }
      throw new IdentityException(
          "could not reach " + uri + " to " + purpose + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IdentityException("interrupted while asking " + uri + " to " + purpose, e);
    }
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest request)
      throws IOException, InterruptedException {
    return dev.knotless.atproto.BoundedBodies.send(
        http,
        request,
        info ->
            HttpResponse.BodySubscribers.mapping(
                dev.knotless.atproto.BoundedBodies.ofByteArray(MAX_BYTES).apply(info),
                bytes -> new String(bytes, java.nio.charset.StandardCharsets.UTF_8)),
        DEADLINE);
  }

  /**
   * Whether {@code e} is a connection that ended before any byte of a reply: what a kept-alive
   * connection closed by its server at the moment it is reused looks like (a Node server closes
   * them after 5 s idle). A reply too large or too slow is not asked again.
   */
  static boolean dropped(IOException e) {
    if (e instanceof java.net.http.HttpTimeoutException) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof dev.knotless.atproto.BoundedBodies.TooLarge) {
        return false;
      }
      String m = t.getMessage();
      if (t instanceof java.io.EOFException
          || (m != null
              && (m.contains("header parser received no bytes")
                  || m.contains("connection closed locally")
                  || m.contains("Connection reset")))) {
        return true;
      }
    }
    return false;
  }

  static JsonNode json(HttpResponse<String> response, String purpose) throws IdentityException {
    try {
      return Json.read(response.body());
    } catch (IOException e) {
      throw new IdentityException(
          response.uri() + " answered " + purpose + " with something that is not JSON", e);
    }
  }

  /** The base URL with a trailing path appended, whatever slash the base ends in. */
  static URI under(URI base, String path) {
    String b = base.toString();
    return URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + path);
  }
}
