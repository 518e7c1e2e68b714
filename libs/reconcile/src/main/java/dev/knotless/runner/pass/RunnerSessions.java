package dev.knotless.runner.pass;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcObserver;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.atproto.oauth.OAuthLogins;
import dev.knotless.atproto.oauth.OAuthSession;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runner's OAuth login: {@code knotless-run login <handle or did>} through a person's browser,
 * saved in the sessions file of the config directory, and resumed by the runner when no app
 * password is set, refreshed unattended from then on. A service given its session through a
 * Kubernetes Secret names the file in {@code KNOTLESS_OAUTH_SESSION}: it seeds the config directory
 * when that holds no session of the account yet, and the refreshed sessions are kept there after.
 */
public final class RunnerSessions {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerSessions.class);

  /** The first word of the command line that logs a runner in. */
  public static final String LOGIN = "login";

  /** The first word of the command line that logs a runner out. */
  public static final String LOGOUT = "logout";

  /** A session file to seed the config directory from (a mounted Secret). */
  public static final String SEED = "KNOTLESS_OAUTH_SESSION";

  private RunnerSessions() {}

  /**
   * {@code knotless-run login|logout [<handle or did>]}.
   *
   * @return the exit code
   */
  public static int command(
      String word, List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    String who = args.isEmpty() ? env.get("KNOTLESS_IDENTIFIER") : args.get(0);
    SessionStore store = SessionStore.fromEnvironment(env);
    try {
      if (who == null || who.isBlank()) {
        who = store.loggedIn().orElse(null);
      }
      if (who == null || args.size() > 1) {
        err.println("knotless-run: usage: knotless-run " + word + " <runner's handle or did>");
        return 2;
      }
      Identity id = identities(env).resolve(who);
      if (LOGOUT.equals(word)) {
        Optional<OAuthSession> s = OAuthLogins.saved(store, id.did());
        if (s.isEmpty()) {
          out.println("no OAuth session of " + id.displayName() + " is saved here");
          return 0;
        }
        OAuthLogins.logout(s.get(), store, env);
        out.println("logged out of " + id.displayName() + ": the OAuth session is revoked");
        return 0;
      }
      OAuthLogins.viaBrowser(id, env, store, err);
      out.println(
          "logged in as "
              + id.displayName()
              + " with an OAuth session, saved in "
              + store.file()
              + "; knotless-run uses it when KNOTLESS_PASSWORD is not set");
      return 0;
    } catch (IOException e) {
      err.println("knotless-run " + word + ": " + e.getMessage());
      return 1;
    }
  }

  /** The runner's client on its saved OAuth session. */
  static XrpcClient resume(
      Map<String, String> env, IdentityResolver identities, HttpClient http, XrpcObserver observer)
      throws IOException {
    SessionStore store = SessionStore.fromEnvironment(env);
    seed(env, store);
    String identifier = env.get("KNOTLESS_IDENTIFIER");
    String did =
        identifier != null && !identifier.isBlank()
            ? identities.resolve(identifier).did()
            : store.loggedIn().orElse(null);
    Optional<OAuthSession> s = did == null ? Optional.empty() : OAuthLogins.saved(store, did);
    if (s.isEmpty()) {
      throw new IOException(
          "no login for the runner: set KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD to its account"
              + " and app password, or log it in with `knotless-run login <handle>`"
              + (did == null ? "" : " (no OAuth session of " + did + " in " + store.file() + ")"));
    }
    XrpcClient runner = XrpcClient.create(s.get().pds(), http, observer);
    OAuthLogins.resume(runner, s.get(), store, env);
    LOG.info(
        "logged in as {} at {} with an OAuth session (granted {})",
        s.get().did(),
        s.get().pds(),
        s.get().scope());
    return runner;
  }

  /** Copies the session in {@link #SEED} into the store when it holds none of that account. */
  static void seed(Map<String, String> env, SessionStore store) throws IOException {
    String file = env.get(SEED);
    if (file == null || file.isBlank()) {
      return;
    }
    JsonNode json = Json.read(Files.readAllBytes(Path.of(file)));
    if (!OAuthSession.isOAuth(json)) {
      throw new IOException(SEED + " names " + file + ", which holds no OAuth session");
    }
    String did = json.path("did").asText("");
    if (store.read(did).isEmpty()) {
      store.writeLogin(did, (com.fasterxml.jackson.databind.node.ObjectNode) json);
      LOG.info("took the OAuth session of {} from {}", did, file);
    }
  }

  private static IdentityResolver identities(Map<String, String> env) {
    return IdentityResolver.fromEnvironment(
        env,
        dev.knotless.atproto.cache.LocalCache.fromEnvironment(env, java.time.Clock.systemUTC()));
  }
}
