package dev.knotless.atproto.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.identity.Identity;
import java.net.URI;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An atproto OAuth client for a command line: a public client whose id is a loopback one ({@code
 * http://localhost?redirect_uri=...&scope=...}), so it hosts no metadata. From an account's
 * identity it finds the PDS's authorization server ({@link OAuthServer#discover}), pushes an
 * authorization request with PKCE (S256) and a new DPoP key, checks the redirect (state, issuer),
 * trades the code for DPoP-bound tokens for that account and no other, refreshes and revokes them.
 * Every request goes through the given HTTP client after {@link ServiceAddresses} allows its
 * address. Thread-safe.
 */
public final class OAuthClient {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final OAuthHttp http;
  private final Clock clock;

  public OAuthClient(HttpClient http, ServiceAddresses addresses, Clock clock) {
    this.http = new OAuthHttp(http, addresses);
    this.clock = clock;
  }

  /** A client on the process's HTTP client and address rules. */
  public static OAuthClient fromEnvironment(Map<String, String> env) {
    ServiceAddresses addresses = ServiceAddresses.fromEnvironment(env);
    return new OAuthClient(addresses.client(), addresses, Clock.systemUTC());
  }

  /**
   * A login under way: the page to send the person to, and what the redirect must match.
   *
   * @param authorizeUrl the authorization server's page for this request
   */
  public record Pending(
      Identity account,
      OAuthServer server,
      String clientId,
      URI redirectUri,
      String scope,
      String state,
      String verifier,
      DpopKey dpop,
      URI authorizeUrl) {
    @Override
    public String toString() {
      return "Pending[" + account.did() + " at " + server.issuer() + "]";
    }
  }

  /** The loopback client id for a redirect to {@code redirectUri} asking for {@code scope}. */
  public static String loopbackClientId(URI redirectUri, String scope) {
    return "http://localhost?redirect_uri="
        + OAuthHttp.enc(redirectUri.toString())
        + "&scope="
        + OAuthHttp.enc(scope);
  }

  /**
   * Starts a login as {@code account}: finds its authorization server and pushes the request.
   *
   * @param redirectUri the loopback address the server sends the person back to
   * @param scope the scopes asked for ({@link KnotlessScopes#requested()})
   */
  public Pending begin(Identity account, URI redirectUri, String scope) throws OAuthException {
    OAuthServer server = OAuthServer.discover(account.pds(), http);
    String clientId = loopbackClientId(redirectUri, scope);
    String verifier = random(32);
    String state = random(16);
    DpopKey dpop = DpopKey.generate();
    Map<String, String> form = new LinkedHashMap<>();
    form.put("client_id", clientId);
    form.put("response_type", "code");
    form.put("redirect_uri", redirectUri.toString());
    form.put("scope", scope);
    form.put("state", state);
    form.put("code_challenge", DpopKey.sha256(verifier));
    form.put("code_challenge_method", "S256");
    form.put("login_hint", account.handle() != null ? account.handle() : account.did());
    JsonNode par = http.postForm(server.par(), form, dpop, "to start a login");
    String requestUri = par.path("request_uri").asText("");
    if (requestUri.isEmpty()) {
      throw new OAuthException(server.par() + " answered without a request_uri");
    }
    URI page =
        URI.create(
            server.authorize()
                + "?client_id="
                + OAuthHttp.enc(clientId)
                + "&request_uri="
                + OAuthHttp.enc(requestUri));
    return new Pending(account, server, clientId, redirectUri, scope, state, verifier, dpop, page);
  }

  /**
   * Finishes a login from the parameters of the redirect: checks them, trades the code for tokens
   * and checks the tokens are the account's.
   */
  public OAuthSession complete(Pending p, Map<String, String> redirect) throws OAuthException {
    if (!p.state().equals(redirect.get("state"))) {
      throw new OAuthException(
          "the redirect does not carry this login's state: it answers another login, or was forged;"
              + " nothing was saved",
          "state_mismatch",
          null);
    }
    String error = redirect.get("error");
    if (error != null) {
      String why = redirect.getOrDefault("error_description", "");
      throw new OAuthException(
          ("access_denied".equals(error)
                  ? "the login was refused at " + p.server().issuer()
                  : p.server().issuer() + " ended the login with " + error)
              + (why.isBlank() ? "" : ": " + why.replaceAll("\\p{Cntrl}", " ")),
          error,
          null);
    }
    String iss = redirect.get("iss");
    if (!p.server().issuer().toString().equals(iss)) {
      throw new OAuthException(
          "the redirect names the issuer "
              + (iss == null ? "(none)" : iss)
              + ", not "
              + p.server().issuer()
              + "; refusing it",
          "issuer_mismatch",
          null);
    }
    String code = redirect.get("code");
    if (code == null || code.isEmpty()) {
      throw new OAuthException("the redirect carries no code");
    }
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "authorization_code");
    form.put("code", code);
    form.put("redirect_uri", p.redirectUri().toString());
    form.put("code_verifier", p.verifier());
    form.put("client_id", p.clientId());
    Instant asked = clock.instant();
    JsonNode t = http.postForm(p.server().token(), form, p.dpop(), "for the login's tokens");
    String sub = sub(t, p.account().did(), p.server());
    return new OAuthSession(
        sub,
        p.account().handle(),
        p.account().pds(),
        p.server(),
        p.clientId(),
        t.path("scope").asText(p.scope()),
        text(t, "access_token", p.server()),
        text(t, "refresh_token", p.server()),
        asked,
        asked.plusSeconds(t.path("expires_in").asLong(60)),
        p.dpop());
  }

  /** New tokens for {@code s} from its refresh token (which the server then retires). */
  public OAuthSession refresh(OAuthSession s) throws OAuthException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "refresh_token");
    form.put("refresh_token", s.refreshToken());
    form.put("client_id", s.clientId());
    Instant asked = clock.instant();
    JsonNode t;
    try {
      t = http.postForm(s.server().token(), form, s.dpop(), "to refresh the session");
    } catch (OAuthException e) {
      if (!e.loginAgain()) {
        throw e;
      }
      throw new OAuthException(
          "the OAuth session of "
              + s.did()
              + " has ended ("
              + e.getMessage()
              + "): log in again (knotless login)",
          e.error(),
          e);
    }
    sub(t, s.did(), s.server());
    return s.refreshed(
        text(t, "access_token", s.server()),
        text(t, "refresh_token", s.server()),
        asked,
        asked.plusSeconds(t.path("expires_in").asLong(60)),
        t.path("scope").asText(s.scope()));
  }

  /** Revokes the session at its server (the refresh token, which ends its access tokens too). */
  public void revoke(OAuthSession s) throws OAuthException {
    if (s.server().revoke() == null) {
      throw new OAuthException(s.server().issuer() + " offers no revocation endpoint");
    }
    for (String token : new String[] {s.refreshToken(), s.accessToken()}) {
      Map<String, String> form = new LinkedHashMap<>();
      form.put("token", token);
      form.put("client_id", s.clientId());
      http.postForm(s.server().revoke(), form, s.dpop(), "to end the session");
    }
  }

  private static String sub(JsonNode t, String expected, OAuthServer server) throws OAuthException {
    if (!"DPoP".equalsIgnoreCase(t.path("token_type").asText(""))) {
      throw new OAuthException(server.issuer() + " gave tokens not bound to the DPoP key");
    }
    String sub = t.path("sub").asText("");
    if (!sub.equals(expected)) {
      throw new OAuthException(
          server.issuer()
              + " gave tokens for "
              + (sub.isEmpty() ? "no account" : sub)
              + ", not "
              + expected
              + "; nothing was saved");
    }
    return sub;
  }

  private static String text(JsonNode t, String field, OAuthServer server) throws OAuthException {
    String v = t.path(field).asText("");
    if (v.isEmpty()) {
      throw new OAuthException(server.issuer() + "'s token reply has no " + field);
    }
    return v;
  }

  private static String random(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
