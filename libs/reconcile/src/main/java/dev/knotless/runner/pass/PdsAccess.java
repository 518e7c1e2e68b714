package dev.knotless.runner.pass;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.XrpcObserver;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.fetch.Fetcher;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a runner reaches PDSes: logged in as its own account for writing checks, anonymous clients of
 * each owner's PDS for reading repositories, the local cache, and identity resolution. Both the
 * all-in-one runner and the distributed reconciler start from one. Thread-safe.
 */
public final class PdsAccess implements SnapshotReaders {

  private static final Logger LOG = LoggerFactory.getLogger(PdsAccess.class);

  private final XrpcClient runner;
  private final StorageCache cache;
  private final IdentityResolver identities;
  private final HttpClient http;
  private final XrpcObserver observer;
  private final Clock clock;
  private final Map<URI, XrpcClient> owners = new ConcurrentHashMap<>();
  private volatile PrivateWatch privates;

  private PdsAccess(
      XrpcClient runner,
      StorageCache cache,
      IdentityResolver identities,
      HttpClient http,
      XrpcObserver observer,
      Clock clock) {
    this.runner = runner;
    this.cache = cache;
    this.identities = identities;
    this.http = http;
    this.observer = observer;
    this.clock = clock;
  }

  /**
   * Logs in as the runner's account, from {@code KNOTLESS_IDENTIFIER} and {@code KNOTLESS_PASSWORD}
   * in {@code env}, or, with no password there, on the OAuth session {@code knotless-run login}
   * saved ({@link RunnerSessions}); the cache and identity settings come from {@code env} too.
   *
   * @throws IOException when either is missing, the account does not resolve, or the login fails
   */
  public static PdsAccess login(Map<String, String> env, Clock clock) throws IOException {
    return login(env, clock, XrpcObserver.NONE);
  }

  /**
   * As {@link #login(Map, Clock)}, with every XRPC call of the runner's client and of the owners'
   * clients (the login included) reported to {@code observer}, for metrics.
   *
   * @param observer must be thread-safe and fast: passes call the PDS from several threads
   */
  public static PdsAccess login(Map<String, String> env, Clock clock, XrpcObserver observer)
      throws IOException {
    return login(env, clock, observer, null);
  }

  /**
   * As {@link #login(Map, Clock, XrpcObserver)}, for a service's replicas: with no password and a
   * session file in {@code KNOTLESS_OAUTH_SESSION}, the OAuth session is shared through {@code
   * shared} ({@link SharedSessions}) rather than kept in the config directory.
   *
   * @param shared the services' session table, or null for none
   */
  public static PdsAccess login(
      Map<String, String> env,
      Clock clock,
      XrpcObserver observer,
      dev.knotless.runner.state.pg.PgOAuthSessions shared)
      throws IOException {
    String identifier = env.get("KNOTLESS_IDENTIFIER");
    String password = env.get("KNOTLESS_PASSWORD");
    StorageCache cache = StorageCache.fromEnvironment(env, clock);
    IdentityResolver identities = IdentityResolver.fromEnvironment(env, cache.local());
    // HTTP/1.1: the reference PDS drops a request that offers an h2c upgrade. Pinned: an https
    // connection goes to an address checked when it is made (DNS rebinding).
    HttpClient http =
        dev.knotless.atproto.ServiceAddresses.fromEnvironment(env)
            .clientBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    if (password == null || password.isEmpty()) {
      String seed = env.get(RunnerSessions.SEED);
      XrpcClient runner =
          shared != null && seed != null && !seed.isBlank()
              ? SharedSessions.resume(env, shared, http, observer)
              : RunnerSessions.resume(env, identities, http, observer);
      return new PdsAccess(runner, cache, identities, http, observer, clock);
    }
    if (identifier == null || identifier.isBlank()) {
      throw new IOException(
          "set KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD to the runner's account and app password");
    }
    Identity self = identities.resolve(identifier);
    XrpcClient runner = XrpcClient.create(self.pds(), http, observer);
    loginUntilAnswered(runner, identifier, password, LOGIN_PATIENCE);
    LOG.info(
        "logged in as {} ({}) at {} with an app password", self.handle(), runner.did(), self.pds());
    return new PdsAccess(runner, cache, identities, http, observer, clock);
  }

  /**
   * How long a service keeps asking a PDS that does not answer at start (a PDS restarting, a
   * machine too loaded to connect in time) before it gives up.
   */
  static final Duration LOGIN_PATIENCE = Duration.ofSeconds(60);

  /**
   * Logs in, trying again (1 s, 2 s, 4 s ... apart, up to {@code patience} in all) while the PDS
   * gives no answer, a 5xx or a 429; a refusal (a wrong password, say) ends it at once.
   */
  static void loginUntilAnswered(
      XrpcClient runner, String identifier, String password, Duration patience)
      throws XrpcException {
    long deadline = System.nanoTime() + patience.toNanos();
    long pause = 1000;
    while (true) {
      try {
        runner.login(identifier, password);
        return;
      } catch (XrpcException e) {
        if (!e.retryable() || System.nanoTime() + pause * 1_000_000 > deadline) {
          throw e;
        }
        LOG.warn("logging in as {}: {}; trying again in {} ms", identifier, e.getMessage(), pause);
        try {
          Thread.sleep(pause);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
        pause = Math.min(pause * 2, 8000);
      }
    }
  }

  /** The client logged in as the runner's account. */
  public XrpcClient runner() {
    return runner;
  }

  /** The local cache: keys, identities, mirrors. */
  public StorageCache cache() {
    return cache;
  }

  /** Resolves handles and DIDs, through the local cache. */
  public IdentityResolver identities() {
    return identities;
  }

  /** An anonymous client of an owner's PDS, one per PDS. */
  public XrpcClient owner(URI pds) {
    return owners.computeIfAbsent(pds, u -> XrpcClient.create(u, http, observer));
  }

  /** The client of the PDS a watched repository lives on. */
  public XrpcClient ownerOf(Watched repo) {
    return owner(repo.address().pds());
  }

  /**
   * Reads a repository named {@code <handle or did>/<name>}; see {@link Watched#read}. A name that
   * holds no public repository is looked for, where a space host is named ({@link #watchPrivate}),
   * in its owner's space of that name, as the runner, a member there.
   */
  public Watched read(String label) throws IOException {
    try {
      return Watched.read(label, identities, this::owner, cache, clock);
    } catch (IOException e) {
      return inSpace(label, e).repo();
    }
  }

  /**
   * Looks for private repositories on the space host {@code host} from now on, as the runner's
   * account ({@link PrivateWatch}), their checks filed through {@code filing}.
   */
  public PrivateWatch watchPrivate(URI host, dev.knotless.runner.filing.SpaceFiling filing) {
    PrivateWatch p =
        new PrivateWatch(
            new dev.knotless.atproto.space.XrpcSpaceClient(
                XrpcClient.create(host, http, observer), runner, clock),
            host,
            cache,
            clock,
            filing);
    privates = p;
    return p;
  }

  /** The private repositories read so far, or null when no space host is named. */
  public PrivateWatch privates() {
    return privates;
  }

  /**
   * Where a watched repository's records are read: its space, for a private one, else its owner's
   * PDS.
   */
  public dev.knotless.atproto.RecordStore storeOf(Watched repo) {
    PrivateWatch p = privates;
    var space = p == null ? null : p.space(repo.id());
    return space != null ? space : ownerOf(repo);
  }

  /**
   * Reads every label, as a start does ({@link LabelReads}), an owner named by many of them read
   * with one listing of their repository records rather than a read each; see {@link
   * OwnerListings}.
   */
  public LabelReads.Result readAll(java.util.List<String> labels) throws IOException {
    OwnerListings listings = OwnerListings.list(labels, identities, this::owner, cache);
    return LabelReads.readAll(
        labels,
        label -> {
          Watched w = listings.watched(label);
          return w != null ? w : read(label);
        });
  }

  /** As {@link #read}, keeping the snapshot it was read from; see {@link Watched#find}. */
  public Watched.Found find(String label) throws IOException {
    try {
      return Watched.find(label, identities, this::owner, cache, clock);
    } catch (IOException e) {
      return inSpace(label, e);
    }
  }

  /**
   * {@code label} read in its owner's space of its name, when a space host is named and reading it
   * as a public repository found none; else {@code publicMiss} again.
   */
  private Watched.Found inSpace(String label, IOException publicMiss) throws IOException {
    PrivateWatch p = privates;
    if (p == null || !String.valueOf(publicMiss.getMessage()).startsWith("no repository ")) {
      throw publicMiss;
    }
    return p.find(label, Watched.address(label, identities), publicMiss);
  }

  /** Other accounts' repositories, read from their owners' PDSes: where pulls' heads live. */
  public dev.knotless.runner.pass.HeadRepos heads() {
    return new dev.knotless.runner.pass.HeadRepos() {
      @Override
      public dev.knotless.storage.Snapshot read(String did, String name) throws IOException {
        Identity id = identities.resolve(did);
        dev.knotless.storage.RepoAddress at =
            new dev.knotless.storage.RepoAddress(did, id.handle(), id.pds(), name);
        return reader(owner(id.pds())).read(at, SnapshotReader.Packs.NONE);
      }

      @Override
      public Fetcher fetcher(String did) throws IOException {
        return PdsAccess.this.fetcher(owner(identities.resolve(did).pds()));
      }
    };
  }

  @Override
  public SnapshotReader reader(dev.knotless.atproto.RecordStore client) {
    return new SnapshotReader(client, cache, clock);
  }

  @Override
  public Fetcher fetcher(dev.knotless.atproto.RecordStore client) {
    return new Fetcher(client, cache, clock);
  }
}
