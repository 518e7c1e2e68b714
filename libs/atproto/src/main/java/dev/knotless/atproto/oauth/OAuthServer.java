package dev.knotless.atproto.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * The authorization server of a PDS, as its metadata describes it: found from the PDS's protected
 * resource metadata, and checked to be what an atproto client needs (the issuer it claims to be,
 * pushed authorization requests, PKCE with S256, ES256 DPoP proofs).
 *
 * @param issuer the server's identity, which the redirect and the token reply must name
 * @param par where authorization requests are pushed
 * @param authorize the page a person is sent to
 * @param token where codes and refresh tokens are exchanged
 * @param revoke where tokens are revoked at logout, or null when it has none
 */
public record OAuthServer(URI issuer, URI par, URI authorize, URI token, URI revoke) {

  /** Finds and checks the authorization server of the PDS at {@code pds}. */
  static OAuthServer discover(URI pds, OAuthHttp http) throws OAuthException {
    URI resource = under(pds, "/.well-known/oauth-protected-resource");
    JsonNode pr;
    try {
      pr = http.getJson(resource, "for its OAuth protected resource metadata");
    } catch (OAuthException e) {
      throw new OAuthException(
          pds
              + " offers no OAuth login ("
              + e.getMessage()
              + "); log in with an app password instead (KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD,"
              + " or knotless login --app-password)",
          e.error(),
          e);
    }
    JsonNode servers = pr.path("authorization_servers");
    if (!servers.isArray() || servers.isEmpty() || !servers.get(0).isTextual()) {
      throw new OAuthException(pds + " names no authorization server in " + resource);
    }
    URI issuer = uri(servers.get(0).asText(), "authorization server", resource);
    JsonNode md =
        http.getJson(
            under(issuer, "/.well-known/oauth-authorization-server"),
            "for its authorization server metadata");
    String claimed = md.path("issuer").asText("");
    if (!claimed.equals(issuer.toString())) {
      throw new OAuthException(
          "the authorization server "
              + issuer
              + " calls itself "
              + (claimed.isEmpty() ? "nothing" : claimed)
              + " in its metadata; refusing it");
    }
    require(md, "code_challenge_methods_supported", "S256", issuer);
    require(md, "dpop_signing_alg_values_supported", "ES256", issuer);
    String where = issuer + "'s metadata";
    URI par =
        uri(md.path("pushed_authorization_request_endpoint").asText(""), "PAR endpoint", issuer);
    URI authorize =
        uri(md.path("authorization_endpoint").asText(""), "authorization endpoint", issuer);
    URI token = uri(md.path("token_endpoint").asText(""), "token endpoint", issuer);
    String rev = md.path("revocation_endpoint").asText("");
    URI revoke = rev.isEmpty() ? null : uri(rev, "revocation endpoint", issuer);
    for (URI u : new URI[] {par, authorize, token, revoke}) {
      if (u != null && !sameOrigin(u, issuer)) {
        throw new OAuthException(where + " sends requests to another server: " + u);
      }
    }
    return new OAuthServer(issuer, par, authorize, token, revoke);
  }

  private static void require(JsonNode md, String field, String value, URI issuer)
      throws OAuthException {
    for (JsonNode v : md.path(field)) {
      if (value.equals(v.asText())) {
        return;
      }
    }
    throw new OAuthException(
        "the authorization server " + issuer + " does not offer " + value + " (" + field + ")");
  }

  private static URI uri(String s, String what, URI from) throws OAuthException {
    try {
      URI u = new URI(s);
      if (!("https".equals(u.getScheme()) || "http".equals(u.getScheme())) || u.getHost() == null) {
        throw new URISyntaxException(s, "not an http(s) address");
      }
      return u;
    } catch (URISyntaxException e) {
      throw new OAuthException(from + " gives no usable " + what + " address: " + s);
    }
  }

  static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme())
        && a.getHost().equalsIgnoreCase(b.getHost())
        && a.getPort() == b.getPort();
  }

  static URI under(URI base, String path) {
    String b = base.toString();
    return URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + path);
  }
}
