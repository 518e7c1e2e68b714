package dev.knotless.atproto.oauth;

import dev.knotless.atproto.BoundTokens;
import dev.knotless.atproto.DpopProofs;
import dev.knotless.atproto.XrpcException;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A live OAuth session for an {@link dev.knotless.atproto.XrpcClient}: hands out its access token,
 * refreshes it ahead of its end ({@link OAuthSession#refreshAhead()}) and when a server calls it
 * stale, one refresh shared by every caller that needs one at once. Refresh tokens are single use,
 * so before refreshing it looks at the saved copy ({@code saved}): another process (a git push
 * beside a runner) may have refreshed already, and its tokens are taken instead of spending a
 * retired one. Every new session goes to {@code onSession} (to be saved). Thread-safe.
 */
public final class OAuthTokens implements BoundTokens {

  private final OAuthClient client;
  private final Clock clock;
  private final Object lock = new Object();
  private final Supplier<Optional<OAuthSession>> saved;
  private final Consumer<OAuthSession> onSession;
  private final Exclusive exclusive;
  private volatile OAuthSession session;

  /** Work a refresh does while no other process may refresh the same session. */
  public interface Exclusive {
    OAuthSession run(Refresh work) throws java.io.IOException;
  }

  /** A refresh, as {@link Exclusive} runs it. */
  public interface Refresh {
    OAuthSession run() throws java.io.IOException;
  }

  /** Tokens refreshed with no lock beyond this object's (one process alone uses the session). */
  public OAuthTokens(
      OAuthSession session,
      OAuthClient client,
      Clock clock,
      Supplier<Optional<OAuthSession>> saved,
      Consumer<OAuthSession> onSession) {
    this(session, client, clock, saved, onSession, Refresh::run);
  }

  /**
   * Tokens whose refreshes run inside {@code exclusive}, such as the sessions file's lock, so that
   * processes sharing the saved session never spend one refresh token twice (the server would end
   * the session).
   */
  public OAuthTokens(
      OAuthSession session,
      OAuthClient client,
      Clock clock,
      Supplier<Optional<OAuthSession>> saved,
      Consumer<OAuthSession> onSession,
      Exclusive exclusive) {
    this.exclusive = exclusive;
    this.session = session;
    this.client = client;
    this.clock = clock;
    this.saved = saved;
    this.onSession = onSession;
  }

  /** The session as it is now. */
  public OAuthSession session() {
    return session;
  }

  @Override
  public String did() {
    return session.did();
  }

  @Override
  public DpopProofs proofs() {
    return session.dpop();
  }

  @Override
  public String accessToken() throws XrpcException {
    OAuthSession s = session;
    if (clock.instant().plus(s.refreshAhead()).isBefore(s.expiresAt())) {
      return s.accessToken();
    }
    return refreshAfter(s.accessToken());
  }

  @Override
  public String refreshAfter(String refused) throws XrpcException {
    synchronized (lock) {
      OAuthSession now = session;
      if (!now.accessToken().equals(refused)) {
        return now.accessToken(); // another caller refreshed while this one waited
      }
      OAuthSession fresh;
      try {
        fresh = exclusive.run(() -> refreshed(now, refused));
      } catch (OAuthException e) {
        throw new XrpcException(
            "oauth.refresh", e.loginAgain() ? 401 : 0, e.error(), e.getMessage(), null, e);
      } catch (java.io.IOException e) {
        throw XrpcException.noStatus("oauth.refresh", e);
      }
      session = fresh;
      return fresh.accessToken();
    }
  }

  /**
   * The session after {@code now}'s token was refused. When the saved one has another refresh
   * token, another process refreshed (or logged in again), and this one's refresh token may be
   * spent: the saved session is used, refreshed first if its own token is near its end too.
   */
  private OAuthSession refreshed(OAuthSession now, String refused) throws OAuthException {
    OAuthSession base = now;
    Optional<OAuthSession> other = saved.get();
    if (other.isPresent()
        && other.get().did().equals(now.did())
        && !other.get().refreshToken().equals(now.refreshToken())) {
      base = other.get();
      if (!base.accessToken().equals(refused)
          && clock.instant().plus(base.refreshAhead()).isBefore(base.expiresAt())) {
        return base;
      }
    }
    OAuthSession fresh = client.refresh(base);
    onSession.accept(fresh);
    return fresh;
  }
}
