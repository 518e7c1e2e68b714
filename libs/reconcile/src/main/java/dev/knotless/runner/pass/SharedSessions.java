package dev.knotless.runner.pass;

import dev.knotless.atproto.Json;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcObserver;
import dev.knotless.atproto.oauth.KnotlessScopes;
import dev.knotless.atproto.oauth.OAuthClient;
import dev.knotless.atproto.oauth.OAuthException;
import dev.knotless.atproto.oauth.OAuthSession;
import dev.knotless.atproto.oauth.OAuthTokens;
import dev.knotless.runner.state.pg.PgOAuthSessions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's OAuth session shared by the replicas of the services through PostgreSQL ({@link
 * PgOAuthSessions}): seeded from the file a Kubernetes Secret mounts ({@code
 * KNOTLESS_OAUTH_SESSION}) when the table holds none of the account or the file holds a newer
 * login, resumed from the table, and refreshed only under the account's row lock after reading the
 * session another replica may have saved, so no refresh token is spent twice. Stateless.
 */
public final class SharedSessions {
  private static final Logger LOG = LoggerFactory.getLogger(SharedSessions.class);

  private SharedSessions() {}

  /** The runner's client on the shared session; {@code env} names the seed file. */
  public static XrpcClient resume(
      Map<String, String> env, PgOAuthSessions sessions, HttpClient http, XrpcObserver observer)
      throws IOException {
    String file = env.get(RunnerSessions.SEED);
    if (file == null || file.isBlank()) {
      throw new IOException(RunnerSessions.SEED + " names no session file");
    }
    OAuthSession seed =
        parse(new String(Files.readAllBytes(Path.of(file)), StandardCharsets.UTF_8));
    String did = seed.did();
    OAuthSession now;
    try {
      if (sessions.seed(did, text(seed), seed.issuedAt())) {
        LOG.info("took the OAuth session of {} from {} into the database", did, file);
      }
      now = parse(sessions.read(did).orElseThrow(() -> new IOException("no session of " + did)));
    } catch (SQLException e) {
      throw new IOException(
          "42P01".equals(e.getSQLState())
              ? "no oauth_session table yet: the reconcilers and check-writers migrate the"
                  + " database at their start"
              : "the saved OAuth session: " + e.getMessage(),
          e);
    }
    KnotlessScopes.requireForWrites(now);
    OAuthTokens tokens =
        new OAuthTokens(
            now,
            OAuthClient.fromEnvironment(env),
            Clock.systemUTC(),
            () -> saved(sessions, did),
            fresh -> save(sessions, fresh),
            // The refresh under the account's row lock; the saved session is read, and the new
            // one written, in that transaction.
            work -> {
              try {
                return sessions.exclusively(did, work::run);
              } catch (SQLException e) {
                throw new IOException("the saved OAuth session: " + e.getMessage(), e);
              } catch (UncheckedIOException e) {
                throw e.getCause();
              }
            });
    XrpcClient runner = XrpcClient.create(now.pds(), http, observer);
    runner.resume(tokens);
    LOG.info(
        "logged in as {} at {} with the OAuth session shared in the database (granted {})",
        did,
        now.pds(),
        now.scope());
    return runner;
  }

  private static Optional<OAuthSession> saved(PgOAuthSessions sessions, String did) {
    try {
      Optional<String> s = sessions.read(did);
      return s.isEmpty() ? Optional.empty() : Optional.of(parse(s.get()));
    } catch (SQLException e) {
      throw new UncheckedIOException(new IOException("the saved OAuth session: " + e.getMessage()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static void save(PgOAuthSessions sessions, OAuthSession fresh) {
    try {
      sessions.write(fresh.did(), text(fresh));
    } catch (SQLException e) {
      throw new UncheckedIOException(
          new IOException("saving the OAuth session: " + e.getMessage()));
    }
  }

  private static String text(OAuthSession s) {
    return new String(Json.write(s.toJson()), StandardCharsets.UTF_8);
  }

  private static OAuthSession parse(String text) throws IOException {
    com.fasterxml.jackson.databind.JsonNode json = Json.read(text);
    if (!OAuthSession.isOAuth(json)) {
      throw new IOException(RunnerSessions.SEED + " holds no OAuth session");
    }
    try {
      return OAuthSession.fromJson(json);
    } catch (OAuthException e) {
      throw new IOException(RunnerSessions.SEED + ": " + e.getMessage(), e);
    }
  }
}
