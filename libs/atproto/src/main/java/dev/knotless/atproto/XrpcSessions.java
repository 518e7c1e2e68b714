package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The session of one {@link XrpcClient}: logged in or resumed, its access token refreshed a minute
 * before it expires and once more when the server calls it expired or invalid, one refresh shared
 * by the callers that need it at once, and a refresh the server refuses answered by logging in
 * again when credentials were given. Thread-safe.
 */
final class XrpcSessions {

  private static final Duration REFRESH_AHEAD = Duration.ofMinutes(1);

  /** A request made with an access token, or none when anonymous. */
  interface Call {
    HttpResponse<byte[]> send(AccessToken token) throws XrpcException;
  }

  /** An identifier and app password held in memory for {@link #reloginWith}; never written. */
  private record Credentials(String identifier, String password) {
    @Override
    public String toString() {
      return "Credentials[" + identifier + "]";
    }
  }

  private final XrpcTransport transport;
  private final Clock clock;
  private final Object lock = new Object();
  private volatile Session session;
  private volatile Consumer<Session> onSession = s -> {};
  private volatile Credentials fallback;
  private volatile BoundTokens oauth;

  XrpcSessions(XrpcTransport transport, Clock clock) {
    this.transport = transport;
    this.clock = clock;
  }

  void onSession(Consumer<Session> listener) {
    this.onSession = listener;
  }

  Session login(String identifier, String password) throws XrpcException {
    ObjectNode body = Json.object();
    body.put("identifier", identifier);
    body.put("password", password);
    String m = "com.atproto.server.createSession";
    Session s =
        sessionFrom(
            XrpcTransport.json(m, transport.post(m, Json.write(body), "application/json", null)));
    set(s);
    return s;
  }

  void resume(Session s) {
    this.oauth = null;
    set(s);
  }

  /** Calls as an OAuth session's account from now on, its tokens DPoP-bound. */
  void resume(BoundTokens tokens) {
    this.oauth = tokens;
  }

  /** The OAuth session this client calls with, or null. */
  BoundTokens oauth() {
    return oauth;
  }

  void reloginWith(String identifier, String password) {
    if (identifier == null || identifier.isBlank() || password == null || password.isEmpty()) {
      throw new IllegalArgumentException("relogin needs an identifier and a password");
    }
    this.fallback = new Credentials(identifier, password);
  }

  /** The session, or null when anonymous. */
  Session current() {
    return session;
  }

  Session refresh() throws XrpcException {
    if (oauth != null) {
      throw new IllegalStateException("an OAuth session refreshes itself (OAuthTokens)");
    }
    Session before = session;
    synchronized (lock) {
      Session now = session;
      if (now != before && now != null) {
        return now; // another caller refreshed while this one waited
      }
      if (now == null) {
        throw new IllegalStateException("not logged in");
      }
      JsonNode r;
      try {
        r =
            XrpcTransport.json(
                "com.atproto.server.refreshSession",
                transport.post(
                    "com.atproto.server.refreshSession",
                    new byte[0],
                    "application/json",
                    AccessToken.bearer(now.refreshJwt())));
      } catch (XrpcException e) {
        Credentials c = fallback;
        if (c == null || e.kind() != XrpcException.Kind.AUTH) {
          throw e;
        }
        // The refresh token is dead (revoked, or past its months): log in again.
        return login(c.identifier(), c.password());
      }
      Session s = sessionFrom(r);
      set(s);
      return s;
    }
  }

  /** Makes {@code call} with the session's access token, refreshed first when due. */
  HttpResponse<byte[]> authed(Call call) throws XrpcException {
    BoundTokens bound = oauth;
    if (bound != null) {
      String token = bound.accessToken();
      try {
        return call.send(AccessToken.dpop(token, bound.proofs()));
      } catch (XrpcException e) {
        if (!e.staleToken()) {
          throw e;
        }
        return call.send(AccessToken.dpop(bound.refreshAfter(token), bound.proofs()));
      }
    }
    Session s = session;
    if (s == null) {
      return call.send(null);
    }
    if (clock.instant().plus(REFRESH_AHEAD).isAfter(s.accessExpiry())) {
      s = refresh();
    }
    try {
      return call.send(AccessToken.bearer(s.accessJwt()));
    } catch (XrpcException e) {
      // ExpiredToken: the server's clock ran ahead of ours. InvalidToken: a token it no longer
      // accepts, such as one signed before a key rotation. Either way one refresh may cure it.
      if (!"ExpiredToken".equals(e.error()) && !"InvalidToken".equals(e.error())) {
        throw e;
      }
      return call.send(AccessToken.bearer(refresh().accessJwt()));
    }
  }

  private static Session sessionFrom(JsonNode r) {
    return new Session(
        r.path("did").asText(),
        r.path("handle").asText(null),
        r.path("accessJwt").asText(),
        r.path("refreshJwt").asText());
  }

  private void set(Session s) {
    this.session = s;
    onSession.accept(s);
  }
}
