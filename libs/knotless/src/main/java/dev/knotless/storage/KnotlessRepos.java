package dev.knotless.storage;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.Session;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.atproto.oauth.OAuthLogins;
import dev.knotless.atproto.oauth.OAuthSession;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.push.Pusher;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point: finds repositories and hands out the readers and writers that work on them,
 * sharing one cache, clock and settings. Build one per process with {@link #fromEnvironment}, or
 * with explicit parts in tests. Thread-safe.
 */
public final class KnotlessRepos {
  private static final Logger LOG = LoggerFactory.getLogger(KnotlessRepos.class);
  private final IdentityResolver identities;
  private final StorageCache cache;
  private final SessionStore sessions;
  private final Clock clock;
  private final Settings settings;
  private final Map<String, String> env;

  public KnotlessRepos(
      IdentityResolver identities,
      StorageCache cache,
      SessionStore sessions,
      Clock clock,
      Settings settings,
      Map<String, String> env) {
    this.identities = identities;
    this.cache = cache;
    this.sessions = sessions;
    this.clock = clock;
    this.settings = settings;
    this.env = Map.copyOf(env);
  }

  /** Everything from the environment ({@code System.getenv()} in production). */
  public static KnotlessRepos fromEnvironment(Map<String, String> env) {
    Clock clock = Clock.systemUTC();
    StorageCache cache = StorageCache.fromEnvironment(env, clock);
    return new KnotlessRepos(
        IdentityResolver.fromEnvironment(env, cache.local()),
        cache,
        SessionStore.fromEnvironment(env),
        clock,
        Settings.fromEnvironment(env),
        env);
  }

  public StorageCache cache() {
    return cache;
  }

  public Clock clock() {
    return clock;
  }

  public Settings settings() {
    return settings;
  }

  /** The environment this was made from: what a process started on its behalf runs with. */
  public Map<String, String> env() {
    return env;
  }

  /** Resolves the owner (handle or DID) and names the repository. */
  public RepoAddress locate(String owner, String name) throws IOException {
    Keys.validateName(name);
    Identity id = identities.resolve(owner);
    return new RepoAddress(id.did(), owner, id.pds(), name);
  }

  public RepoAddress locate(KnotlessUrl url) throws IOException {
    return locate(url.owner(), url.name());
  }

  /**
   * After the owner's PDS said the account is not there ({@link XrpcException#accountNotHere}):
   * drops the identity cached for the owner and their DID and resolves it again, so an account that
   * moved to another PDS is found there at once.
   *
   * @return the repository at the PDS its owner names now, or empty when that is the same PDS (or
   *     the failure was another kind), so the caller should report the original failure
   */
  public Optional<RepoAddress> relocate(RepoAddress repo, XrpcException why) throws IOException {
    if (!why.accountNotHere()) {
      return Optional.empty();
    }
    identities.forget(repo.owner());
    identities.forget(repo.did());
    RepoAddress fresh = locate(repo.owner(), repo.name());
    if (fresh.pds().equals(repo.pds()) && fresh.did().equals(repo.did())) {
      return Optional.empty();
    }
    LOG.info("{} is now at {}, not {}", repo.owner(), fresh.pds(), repo.pds());
    return Optional.of(fresh);
  }

  /** An anonymous client for reading a public repository. */
  public XrpcClient reader(RepoAddress repo) {
    return XrpcClient.create(repo.pds());
  }

  /**
   * A client logged in as the repository's owner. One login serves every process: a session saved
   * for the owner (by {@code knotless login}, or by an earlier run with {@code KNOTLESS_IDENTIFIER}
   * and {@code KNOTLESS_PASSWORD}) is resumed, refreshed when it nears expiry, and saved again
   * after every refresh. With the environment's credentials, a saved session of that account is
   * resumed too, and the password only logs in when there is none or its refresh is refused; the
   * new session is saved, the password never is. A saved OAuth session (from {@code knotless
   * login}) is used whenever there is one, its tokens DPoP-bound and refreshed as they near their
   * end.
   *
   * @throws IOException when no credentials are there, or they are for another account
   */
  public XrpcClient writer(RepoAddress repo) throws IOException {
    XrpcClient client = login(repo.pds(), repo.did(), repo.owner());
    if (!client.did().equals(repo.did())) {
      throw new IOException(
          "logged in as "
              + client.did()
              + ", but "
              + repo.url()
              + " belongs to "
              + repo.did()
              + "; only the owner writes to it directly");
    }
    return client;
  }

  /**
   * A client of this person's own PDS, logged in as the account {@link #self} names, as {@link
   * #writer} logs in: what reads a private repository as one of its members.
   *
   * @throws IOException when no one is logged in
   */
  public XrpcClient member() throws IOException {
    String me =
        self()
            .orElseThrow(
                () ->
                    new IOException(
                        "not logged in: run `knotless login`, or set KNOTLESS_IDENTIFIER and"
                            + " KNOTLESS_PASSWORD"));
    Identity id = identities.resolve(me);
    XrpcClient client = login(id.pds(), id.did(), me);
    if (!client.did().equals(id.did())) {
      throw new IOException("logged in as " + client.did() + ", not " + me);
    }
    return client;
  }

  private XrpcClient login(URI pds, String did, String who) throws IOException {
    XrpcClient client = XrpcClient.create(pds);
    String id = loginIdentifier();
    String password = env.get("KNOTLESS_PASSWORD");
    boolean fromEnv = id != null && password != null && !password.isEmpty();
    Optional<ObjectNode> json = sessions.read(did);
    if (json.isPresent() && OAuthSession.isOAuth(json.get())) {
      // An OAuth login is the person's choice: it is used even beside a password in the
      // environment, which would otherwise overwrite it.
      OAuthLogins.resume(client, OAuthSession.fromJson(json.get()), sessions, env);
      return client;
    }
    Optional<Session> saved = json.map(KnotlessRepos::sessionFrom);
    if (fromEnv) {
      client.reloginWith(id, password);
      if (saved.isPresent() && sameAccount(id, saved.get(), json.get())) {
        client.resume(saved.get());
      } else {
        Session s = client.login(id, password);
        sessions.write(s.did(), sessionJson(s, id));
      }
    } else if (saved.isPresent()) {
      client.resume(saved.get());
    } else {
      throw new IOException(
          "not logged in as "
              + who
              + ": run `knotless login`, or set KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD");
    }
    // Every later session (a refresh, or a login after a refused refresh) is saved for the next
    // run.
    String recorded = fromEnv ? id : null;
    client.onSession(fresh -> sessions.write(fresh.did(), sessionJson(fresh, recorded)));
    return client;
  }

  /**
   * Who this person is when a command writes in their own account rather than a repository's owner
   * (a queue record): the account {@code KNOTLESS_IDENTIFIER} names, else the one {@code knotless
   * login} saved a session of ({@link SessionStore#loggedIn}), else empty, and the caller decides.
   * A handle, email or DID, as {@link #locate} takes it; {@link #writer} then logs in as it.
   */
  public Optional<String> self() {
    String id = loginIdentifier();
    return id != null ? Optional.of(id) : sessions.loggedIn();
  }

  private String loginIdentifier() {
    String id = env.get("KNOTLESS_IDENTIFIER");
    return id == null || id.isBlank() ? null : id.strip();
  }

  /** Whether a saved session is the account {@code identifier} (a DID, handle or email) names. */
  static boolean sameAccount(String identifier, Session saved, ObjectNode json) {
    String id = identifier.startsWith("@") ? identifier.substring(1) : identifier;
    return id.equals(saved.did())
        || id.equalsIgnoreCase(String.valueOf(saved.handle()))
        || id.equalsIgnoreCase(json.path("identifier").asText(""));
  }

  private static Session sessionFrom(ObjectNode s) {
    return new Session(
        s.path("did").asText(),
        s.path("handle").asText(null),
        s.path("accessJwt").asText(),
        s.path("refreshJwt").asText());
  }

  /** The JSON a session is saved as. */
  public static ObjectNode sessionJson(Session s) {
    return sessionJson(s, null);
  }

  /**
   * The JSON a session is saved as, with the identifier it was logged in with (not secret), so a
   * later run given the same {@code KNOTLESS_IDENTIFIER}, even an email, finds it.
   */
  public static ObjectNode sessionJson(Session s, String identifier) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("did", s.did());
    n.put("handle", s.handle());
    n.put("accessJwt", s.accessJwt());
    n.put("refreshJwt", s.refreshJwt());
    if (identifier != null) {
      n.put("identifier", identifier);
    }
    return n;
  }

  public SessionStore sessions() {
    return sessions;
  }

  public SnapshotReader snapshots(RecordStore client) {
    return new SnapshotReader(client, cache, clock);
  }

  /**
   * How many packs an owner's push counts for the compaction it may start: the threshold, or 0 when
   * {@code KNOTLESS_COMPACT} is off.
   */
  public int compactionCount() {
    return settings.compactMode() == Settings.CompactMode.OFF ? 0 : settings.compactThreshold();
  }

  public Pusher pusher(RecordStore client) {
    return new Pusher(client, cache, clock, settings.claimGrace())
        .namingRunners(dev.knotless.storage.secrets.DefaultRunner.fromEnvironment(env));
  }

  public Fetcher fetcher(RecordStore client) {
    return new Fetcher(client, cache, clock);
  }

  /** The shared mirror of a repository, created on first use. */
  public Mirror mirror(RepoAddress repo, String key) throws IOException {
    return Mirror.open(cache.dir(), repo.did(), key);
  }

  /** The PDS a client of this set talks to, for messages. */
  static String describe(URI pds) {
    return pds.toString();
  }
}
