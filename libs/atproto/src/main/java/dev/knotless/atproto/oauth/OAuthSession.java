package dev.knotless.atproto.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import java.net.URI;
import java.text.ParseException;
import java.time.Instant;

/**
 * An OAuth session: whose, where its tokens come from, what it was granted, the tokens and the DPoP
 * key they are bound to. Saved as JSON in the sessions file beside app-password sessions, told
 * apart by {@code "kind": "oauth"}. The tokens and the key are secrets: {@link #toString()} leaves
 * them out.
 *
 * @param did the account (the token reply's {@code sub})
 * @param handle its handle when logged in by handle, else null
 * @param pds the account's PDS, the resource the tokens are for
 * @param server the authorization server's endpoints
 * @param clientId the client id the session was granted to (a loopback one)
 * @param scope the scope granted
 * @param accessToken the access token
 * @param refreshToken the refresh token (single use: each refresh gives a new one)
 * @param issuedAt when the access token was given
 * @param expiresAt when the access token ends
 * @param dpop the key the tokens are bound to
 */
public record OAuthSession(
    String did,
    String handle,
    URI pds,
    OAuthServer server,
    String clientId,
    String scope,
    String accessToken,
    String refreshToken,
    Instant issuedAt,
    Instant expiresAt,
    DpopKey dpop) {

  /** The value of {@code kind} in the saved JSON. */
  public static final String KIND = "oauth";

  /** This session with new tokens from a refresh. */
  OAuthSession refreshed(
      String access, String refresh, Instant issued, Instant expires, String granted) {
    return new OAuthSession(
        did, handle, pds, server, clientId, granted, access, refresh, issued, expires, dpop);
  }

  /** How long before its end the access token is refreshed: a quarter of its life, at most 60 s. */
  public java.time.Duration refreshAhead() {
    java.time.Duration life = java.time.Duration.between(issuedAt, expiresAt);
    java.time.Duration quarter = life.dividedBy(4);
    return quarter.compareTo(java.time.Duration.ofSeconds(60)) < 0
        ? quarter
        : java.time.Duration.ofSeconds(60);
  }

  /** The JSON this session is saved as (secrets included: only for the owner-only file). */
  public ObjectNode toJson() {
    ObjectNode n = Json.object();
    n.put("kind", KIND);
    n.put("did", did);
    if (handle != null) {
      n.put("handle", handle);
    }
    n.put("pds", pds.toString());
    n.put("issuer", server.issuer().toString());
    n.put("par", server.par().toString());
    n.put("authorize", server.authorize().toString());
    n.put("token", server.token().toString());
    if (server.revoke() != null) {
      n.put("revoke", server.revoke().toString());
    }
    n.put("clientId", clientId);
    n.put("scope", scope);
    n.put("accessToken", accessToken);
    n.put("refreshToken", refreshToken);
    n.put("issuedAt", issuedAt.toString());
    n.put("expiresAt", expiresAt.toString());
    n.put("dpopKey", dpop.toJson());
    return n;
  }

  /** Whether {@code json} is a saved OAuth session rather than an app-password one. */
  public static boolean isOAuth(JsonNode json) {
    return json != null && KIND.equals(json.path("kind").asText());
  }

  /** The session saved as {@code json}. */
  public static OAuthSession fromJson(JsonNode json) throws OAuthException {
    try {
      String rev = json.path("revoke").asText("");
      OAuthServer server =
          new OAuthServer(
              URI.create(text(json, "issuer")),
              URI.create(text(json, "par")),
              URI.create(text(json, "authorize")),
              URI.create(text(json, "token")),
              rev.isEmpty() ? null : URI.create(rev));
      return new OAuthSession(
          text(json, "did"),
          json.path("handle").asText(null),
          URI.create(text(json, "pds")),
          server,
          text(json, "clientId"),
          json.path("scope").asText(""),
          text(json, "accessToken"),
          text(json, "refreshToken"),
          Instant.parse(text(json, "issuedAt")),
          Instant.parse(text(json, "expiresAt")),
          DpopKey.fromJson(text(json, "dpopKey")));
    } catch (ParseException | IllegalArgumentException | java.time.DateTimeException e) {
      throw new OAuthException(
          "the saved OAuth session is damaged (" + e.getMessage() + "): log in again",
          "login_again",
          e);
    }
  }

  private static String text(JsonNode json, String field) {
    String v = json.path(field).asText("");
    if (v.isEmpty()) {
      throw new IllegalArgumentException("it has no " + field);
    }
    return v;
  }

  @Override
  public String toString() {
    return "OAuthSession[did=" + did + ", issuer=" + server.issuer() + ", scope=" + scope + "]";
  }
}
