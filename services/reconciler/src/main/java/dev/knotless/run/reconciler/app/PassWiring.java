package dev.knotless.run.reconciler.app;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.events.PdsMetrics;
import dev.knotless.run.reconciler.adapter.db.PullHeadsTable;
import dev.knotless.run.reconciler.adapter.db.WatchedTable;
import dev.knotless.runner.discover.Discoverer;
import dev.knotless.runner.discover.RepoList;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.engine.DiscoverWiring;
import dev.knotless.runner.engine.PrivateWiring;
import dev.knotless.runner.engine.QueueWiring;
import dev.knotless.runner.engine.SealedStart;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.mergequeue.QueuePass;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.repopass.PassExtras;
import dev.knotless.runner.repopass.RepoPass;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.StorageCache;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Assembles libs/runner's reconcile pass as the all-in-one does, with the service's parts: state in
 * PostgreSQL, runs queued with their orders in the PostgreSQL run queue by {@link RunQueuer}, for
 * the scheduler to run as pods. Built on the first pass (it logs in), so a reconciler whose pass is
 * replaced never needs an account.
 */
@ApplicationScoped
public class PassWiring {
  private static final Logger LOG = Logger.getLogger(PassWiring.class);

  /** The pass and the repositories it passes, by the key doorbells name them with. */
  public record WiredPass(RepoPass pass, Watching watching) {}

  private final ScheduledExecutorService sweeps =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "discovery-sweep");
            t.setDaemon(true);
            return t;
          });
  private final ScheduledExecutorService spaces =
      Executors.newScheduledThreadPool(
          1,
          r -> {
            Thread t = new Thread(r, "private-spaces");
            t.setDaemon(true);
            return t;
          });
  private volatile Discoverer discoverer;

  /** Who holds which doorbell partition: each private space is polled by its repository's. */
  @jakarta.inject.Inject
  @io.smallrye.common.annotation.Identifier("doorbells-rebalance")
  jakarta.inject.Provider<dev.knotless.run.reconciler.adapter.kafka.AssignedDoors> assigned;

  @Produces
  @Singleton
  WiredPass wiredPass(
      ReconcilerConfig config,
      StateStore state,
      RunQueuer queuer,
      WatchedTable table,
      PullHeadsTable pullHeads,
      dev.knotless.runner.state.pg.PgSpaceCursors spaceCursors,
      MeterRegistry registry,
      io.agroal.api.AgroalDataSource db)
      throws IOException {
    Map<String, String> env = new HashMap<>(System.getenv());
    config.identifier().ifPresent(v -> env.put("KNOTLESS_IDENTIFIER", v));
    config.password().ifPresent(v -> env.put("KNOTLESS_PASSWORD", v));
    config.plcUrl().ifPresent(v -> env.put("KNOTLESS_PLC_URL", v));
    config.handleResolver().ifPresent(v -> env.put("KNOTLESS_HANDLE_RESOLVER", v));
    config.cacheDir().ifPresent(v -> env.put("KNOTLESS_CACHE_DIR", v));
    Clock clock = Clock.systemUTC();
    // With no password, the OAuth session the Secret mounts is shared with the other replicas
    // through the database (oauth_session), refreshed under its row lock.
    PdsAccess access =
        PdsAccess.login(
            env,
            clock,
            new PdsMetrics(registry),
            new dev.knotless.runner.state.pg.PgOAuthSessions(db));
    XrpcClient runnerClient = access.runner();
    StorageCache cache = access.cache();
    CheckFiler filer = new CheckFiler(new RetryingWrites(runnerClient));
    // Before anything is read: a private repository's checks go to its space from its first read.
    dev.knotless.runner.pass.PrivateWatch privates = PrivateWiring.begin(env, access, filer);
    if (privates != null) {
      // Whichever replica holds a repository's partition asks its space from the cursor kept here.
      privates.keepCursorsIn(dev.knotless.runner.pass.SpaceCursors.in(spaceCursors));
    }

    Watching watching =
        new Watching(
            table, pullHeads, access::read, id -> queuer.ring(id, Doorbell.connect("found")));
    List<String> labels = listed(config);
    if (labels.isEmpty() && !config.discover()) {
      LOG.warn(
          "no repositories are listed (knotless.reconciler.repos-file) and discovery is off:"
              + " nothing is watched until some are");
    }
    List<RepoId> listed = new ArrayList<>();
    // A few at a time, an owner of many listed at once: thousands are not read one by one.
    dev.knotless.runner.pass.LabelReads.Result reads = access.readAll(labels);
    for (Watched w : reads.read()) {
      LOG.infof("%s: watching %s", w.label(), w.stateKey());
      listed.add(w.id());
    }
    try {
      watching.listed(reads.read());
    } catch (SQLException e) {
      throw new IOException("the watched repositories cannot be written: " + e.getMessage(), e);
    }
    // One unreadable repository must not stop the others; it is read again at the next start.
    reads
        .failed()
        .forEach(
            (label, why) ->
                LOG.errorf("%s: cannot be watched until the next start: %s", label, why));
    try {
      int gone = table.keepListed(listed);
      if (gone > 0) {
        LOG.infof("%d repositories taken off the list are no longer watched", gone);
      }
    } catch (SQLException e) {
      throw new IOException("the watched repositories cannot be written: " + e.getMessage(), e);
    }

    RunPlanner planner =
        RunPlanner.forRunner(
            new RunPlanner.Settings(
                config.secretsFile().orElse(null),
                config.stepTimeout(),
                config.runTimeout().orElse(null),
                // No step runs here: the scheduler plans each run again from its order.
                Map.of()),
            access,
            SealedStart.none().owner(),
            clock);
    PassExtras extras =
        extras(
            config,
            PassExtras.all(
                    planner,
                    filer,
                    queuer.asked(),
                    config.keepChecks(),
                    config.secretsFile().orElse(null))
                .forRunner(runnerClient.did()),
            new PullPass.Parts(access, state, filer, planner, queuer, clock),
            pullHeads,
            queuer);
    // Many repositories: one listing of the checks spares the first passes that hold none a prune.
    dev.knotless.runner.pass.PruneAhead.skipEmpty(reads.read(), filer, extras.pruner(), clock);
    RepoPass pass =
        new RepoPass(
            access::storeOf,
            access,
            state,
            filer,
            planner,
            queuer,
            cache.dir(),
            () ->
                config
                    .pausedFile()
                    .map(f -> PausedOwners.read(f, runnerClient.did()))
                    .orElse(PausedOwners.none()),
            clock,
            extras);
    if (extras.queue() != null) {
      // The queue records this reconciler's passes read, read again between passes.
      QueueWiring.noticing(
          extras.queue().notice(),
          sweeps,
          config.queue().notice(),
          id -> queuer.ring(id, Doorbell.NOTICE));
    }
    if (config.discover()) {
      URI appview = appview(config, "knotless.reconciler.discover", "listRepos");
      discoverer =
          DiscoverWiring.discoverer(appview, access, state, runnerClient.did(), watching, privates);
      watching.discoverWith(discoverer);
      pass.discovering(watching::found, runnerClient.did());
      // What was found before is watched before the appview is asked, which may be down.
      Discoverer d = discoverer;
      sweeps.execute(d::fromState);
      sweeps.scheduleWithFixedDelay(d::sweep, 0, config.sweep().toSeconds(), TimeUnit.SECONDS);
      // The runner's invites, read by the replica holding the partition of their key, from the
      // cursor the state keeps for every replica.
      String invitesKey = "invites/" + runnerClient.did();
      dev.knotless.runner.engine.InviteWiring.reading(
          spaces,
          config.sweep(),
          appview,
          access,
          state,
          d,
          () -> assigned.get().holds(invitesKey));
    }
    Discoverer found = discoverer;
    if (privates != null) {
      // Each space is asked by the replica holding its repository's doorbell partition, so by one
      // at a time; a write heard rings the door through the topic, to that same replica.
      LOG.infof(
          "private repositories are read on the space host %s; each is asked every %d s",
          env.get(dev.knotless.storage.PrivateRepos.HOST_ENV).strip(), config.poll().toSeconds());
      watching.leavingSpaces(privates::forget);
      PrivateWiring.polling(
          spaces,
          config.poll(),
          privates,
          config.appview().orElse(null),
          runnerClient,
          // One found by an invite is heard through the appview; any other, like a repository
          // named on the all-in-one's command line, may have no invite, so its space is asked at
          // every poll.
          id -> found == null || !found.found(id),
          id -> assigned.get().holds(id),
          id -> queuer.ring(id, Doorbell.frame("com.atproto.space.listRepos")));
    }
    return new WiredPass(pass, watching);
  }

  /**
   * {@code extras}, with the pulls step when {@code knotless.reconciler.pulls} is on (the heads of
   * the pulls each pass finds in other repositories go to {@code heads}, which the ingester
   * follows), and the merge queue's step after it when {@code knotless.reconciler.queue.enabled}
   * is: its batches queued for the scheduler as every run is, and dropped ones cancelled there.
   */
  private static PassExtras extras(
      ReconcilerConfig config,
      PassExtras extras,
      PullPass.Parts parts,
      PullHeadsTable heads,
      RunQueuer queuer)
      throws IOException {
    if (config.queue().enabled() && !config.pulls()) {
      throw new IOException(
          "knotless.reconciler.queue.enabled needs knotless.reconciler.pulls: the queue lands open"
              + " pulls, which are read as the pulls step reads them");
    }
    if (!config.pulls()) {
      return extras;
    }
    URI appview = appview(config, "knotless.reconciler.pulls", "listPulls");
    PullPass pulls = PullPass.of(parts, XrpcClient.create(appview)).followingHeads(heads::publish);
    PassExtras withPulls = extras.withPulls(pulls, false);
    if (!config.queue().enabled()) {
      return withPulls;
    }
    QueuePass queue =
        QueueWiring.pass(
            config.queue().batch(),
            config.queue().depth(),
            parts.access(),
            parts.state(),
            parts.filer(),
            parts.planner(),
            queuer,
            queuer::cancel,
            pulls,
            parts.clock());
    return withPulls.withQueue(queue);
  }

  /** The appview, which {@code setting} needs to ask {@code method}: a clear error without it. */
  private static URI appview(ReconcilerConfig config, String setting, String method)
      throws IOException {
    return config
        .appview()
        .orElseThrow(
            () ->
                new IOException(
                    setting + " needs knotless.reconciler.appview, where " + method + " is asked"));
  }

  /** The listed repositories: the list file (the chart's ConfigMap) and the {@code repos} key. */
  static List<String> listed(ReconcilerConfig config) throws IOException {
    List<String> labels = new ArrayList<>();
    for (String label : config.repos().orElse(List.of())) {
      labels.add(RepoList.check("knotless.reconciler.repos", label.strip()));
    }
    if (config.reposFile().isPresent()) {
      java.nio.file.Path file = config.reposFile().get();
      labels =
          RepoList.both(
              labels,
              RepoList.parse(
                  file.toString(),
                  java.nio.file.Files.readAllLines(file, java.nio.charset.StandardCharsets.UTF_8)));
    }
    return labels;
  }

  @PreDestroy
  void stop() {
    sweeps.shutdownNow();
    spaces.shutdownNow();
    if (discoverer != null) {
      discoverer.close();
    }
  }
}
