package dev.knotless.run.reconciler.app;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.events.PdsMetrics;
import dev.knotless.runner.checks.CheckFiler;
import dev.knotless.runner.checks.RetryingWrites;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.engine.AskedLedger;
import dev.knotless.runner.pass.PassExtras;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.RepoPass;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pass.WriteBack;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.StorageCache;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Assembles libs/runner's reconcile pass as the all-in-one does, with the service's parts: state in
 * PostgreSQL, runs claimed in the PostgreSQL run queue and run by this instance's {@link
 * RunWorker}. Built on the first pass (it logs in), so a reconciler whose pass is replaced never
 * needs an account.
 */
@ApplicationScoped
public class PassWiring {
  private static final Logger LOG = Logger.getLogger(PassWiring.class);

  /** The pass and the repositories it passes, by the key doorbells name them with. */
  public record WiredPass(RepoPass pass, Map<RepoId, Watched> watched) {}

  @Produces
  @Singleton
  WiredPass wiredPass(
      ReconcilerConfig config, StateStore state, RunWorker worker, MeterRegistry registry)
      throws IOException {
    Map<String, String> env = new HashMap<>(System.getenv());
    config.identifier().ifPresent(v -> env.put("KNOTLESS_IDENTIFIER", v));
    config.password().ifPresent(v -> env.put("KNOTLESS_PASSWORD", v));
    config.plcUrl().ifPresent(v -> env.put("KNOTLESS_PLC_URL", v));
    config.handleResolver().ifPresent(v -> env.put("KNOTLESS_HANDLE_RESOLVER", v));
    config.cacheDir().ifPresent(v -> env.put("KNOTLESS_CACHE_DIR", v));
    Clock clock = Clock.systemUTC();
    PdsAccess access = PdsAccess.login(env, clock, new PdsMetrics(registry));
    XrpcClient runnerClient = access.runner();
    worker.useRunner(runnerClient.did());
    StorageCache cache = access.cache();

    Map<RepoId, Watched> watched = new ConcurrentHashMap<>();
    for (String label : config.repos().orElse(List.of())) {
      try {
        Watched w = access.read(label);
        LOG.infof("%s: watching %s", label, w.stateKey());
        watched.put(w.id(), w);
      } catch (IOException | IllegalArgumentException e) {
        // One unreadable repository must not stop the others; it is read again at the next start.
        LOG.errorf("%s: cannot be watched until the next start: %s", label, e.getMessage());
      }
    }

    CheckFiler filer = new CheckFiler(new RetryingWrites(runnerClient));
    RunPlanner planner =
        new RunPlanner(
            new RunPlanner.Settings(
                config.secretsFile().orElse(null),
                config.stepTimeout(),
                config.runTimeout().orElse(null),
                dev.knotless.runner.engine.ExecutorChoice.hostEnvironment(
                    config.worker().executor(), env)),
            new WriteBack(runnerClient, cache, clock))
            .withSharedSteps(
                new dev.knotless.runner.pass.SharedStepFiles(access.heads(), cache.dir()));
    RepoPass pass =
        new RepoPass(
            access::ownerOf,
            access,
            state,
            filer,
            planner,
            worker,
            cache.dir(),
            () ->
                config
                    .pausedFile()
                    .map(f -> PausedOwners.read(f, runnerClient.did()))
                    .orElse(PausedOwners.none()),
            clock,
            PassExtras.all(
                    planner,
                    filer,
                    new AskedLedger(),
                    config.keepChecks(),
                    config.secretsFile().orElse(null))
                .forRunner(runnerClient.did()));
    return new WiredPass(pass, Map.copyOf(watched));
  }
}
