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
      return dev.knotless.atproto.BoundedBodies.send(
          http,
          request,
          info ->
              HttpResponse.BodySubscribers.mapping(
                  dev.knotless.atproto.BoundedBodies.ofByteArray(MAX_BYTES).apply(info),
                  bytes -> new String(bytes, java.nio.charset.StandardCharsets.UTF_8)),
          DEADLINE);
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
