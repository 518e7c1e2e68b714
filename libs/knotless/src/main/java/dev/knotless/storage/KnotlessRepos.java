package dev.knotless.storage;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Session;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.push.Pusher;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * The entry point: finds repositories and hands out the readers and writers that work on them,
 * sharing one cache, clock and settings. Build one per process with {@link #fromEnvironment}, or
 * with explicit parts in tests. Thread-safe.
 */
public final class KnotlessRepos {
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

  /** Resolves the owner (handle or DID) and names the repository. */
  public RepoAddress locate(String owner, String name) throws IOException {
    Keys.validateName(name);
    Identity id = identities.resolve(owner);
    return new RepoAddress(id.did(), owner, id.pds(), name);
  }

  public RepoAddress locate(KnotlessUrl url) throws IOException {
    return locate(url.owner(), url.name());
  }

  /** An anonymous client for reading a public repository. */
  public XrpcClient reader(RepoAddress repo) {
    return XrpcClient.create(repo.pds());
  }

  /**
   * A client logged in as the repository's owner: {@code KNOTLESS_IDENTIFIER} and {@code
   * KNOTLESS_PASSWORD}, else a session {@code knotless login} saved.
   *
   * @throws IOException when no credentials are there, or they are for another account
   */
  public XrpcClient writer(RepoAddress repo) throws IOException {
    XrpcClient client = XrpcClient.create(repo.pds());
    String id = env.get("KNOTLESS_IDENTIFIER");
    String password = env.get("KNOTLESS_PASSWORD");
    if (id != null && !id.isBlank() && password != null && !password.isEmpty()) {
      client.login(id, password);
    } else {
      Optional<ObjectNode> saved = sessions.read(repo.did());
      if (saved.isEmpty()) {
        throw new IOException(
            "not logged in as "
                + repo.owner()
                + ": run `knotless login`, or set KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD");
      }
      ObjectNode s = saved.get();
      client.resume(
          new Session(
              s.path("did").asText(),
              s.path("handle").asText(null),
              s.path("accessJwt").asText(),
              s.path("refreshJwt").asText()));
      client.onSession(fresh -> sessions.write(fresh.did(), sessionJson(fresh)));
    }
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

  /** The JSON a session is saved as. */
  public static ObjectNode sessionJson(Session s) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("did", s.did());
    n.put("handle", s.handle());
    n.put("accessJwt", s.accessJwt());
    n.put("refreshJwt", s.refreshJwt());
    return n;
  }

  public SessionStore sessions() {
    return sessions;
  }

  public SnapshotReader snapshots(XrpcClient client) {
    return new SnapshotReader(client, cache, clock);
  }

  public Pusher pusher(XrpcClient client) {
    return new Pusher(client, cache, clock, settings.claimGrace());
  }

  public Fetcher fetcher(XrpcClient client) {
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
