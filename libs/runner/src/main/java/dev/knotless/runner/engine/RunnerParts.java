package dev.knotless.runner.engine;

import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.liveoutput.LiveOutput;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.repopass.PassExtras;
import dev.knotless.runner.repopass.RepoPass;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.schedule.Scheduler;
import dev.knotless.runner.schedule.SchedulerConfig;
import dev.knotless.runner.schedule.UsageLedger;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.StorageCache;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the all-in-one runner is made of, put together from its flags once the repositories are
 * read: the scheduler and its job pool over the executor, the minutes writer, live output, the
 * planner, and the pass with its extras (reruns, runs by name, pulls, the queue) and caches.
 *
 * @param executor where steps run
 * @param jobs the job pool
 * @param minutes files owners' minutes records
 * @param live sends running checks' output to the appview, or null
 * @param asked what each run asked for by name was asked with
 * @param extras the pass's extras
 * @param pass one repository's pass
 */
record RunnerParts(
    Executor executor,
    Jobs jobs,
    MinutesWriter minutes,
    LiveOutput live,
    AskedLedger asked,
    PassExtras extras,
    RepoPass pass) {
  private static final Logger LOG = LoggerFactory.getLogger(RunnerParts.class);

  /**
   * Wires the parts; {@code ring} rings the door of a repository (by its state key) whose batch run
   * was filed as ended, and {@code runs} hears how each run waited and ended.
   */
  static RunnerParts wire(
      RunnerOptions o,
      Map<String, String> env,
      Clock clock,
      StateStore state,
      PdsAccess access,
      SealedStart sealed,
      RetryingWrites writes,
      CheckFiler filer,
      Consumer<String> ring,
      MeteredReports.Meter runs)
      throws IOException {
    var runnerClient = access.runner();
    String runnerDid = runnerClient.did();
    StorageCache cache = access.cache();
    SchedulerConfig config =
        SchedulerConfig.defaults(o.jobs(), runnerDid)
            .withCaps(o.pullJobs(), o.ownerJobs() == 0 ? o.jobs() : o.ownerJobs())
            .withAllowances(
                o.allowanceMinutes() == 0 ? SchedulerConfig.UNLIMITED : o.allowanceMinutes(),
                o.privateAllowanceMinutes() == 0
                    ? SchedulerConfig.UNLIMITED
                    : o.privateAllowanceMinutes(),
                o.unmetered());
    UsageLedger usage = new UsageLedger();
    // Allowances count 30 days of steps: what earlier runs of this runner used still counts.
    dev.knotless.runner.state.UsageSeed.into(usage, state);
    Scheduler scheduler = new Scheduler(config, usage);
    Executor executor =
        o.executor()
            .open(new dev.knotless.runner.exec.ExecutorContext(runnerDid, o.work(), clock, env));
    // What a runner killed mid-run left (containers, networks) goes before any run starts.
    executor.removeLeftovers();
    MinutesWriter minutes = new MinutesWriter(writes, clock);
    LiveOutput live = LiveOutputs.open(o.appview(), runnerClient);
    Jobs jobs =
        new Jobs(
            scheduler,
            executor,
            new MeteredReports(
                dev.knotless.runner.engine.QueueWiring.ringing(
                    new FiledChecks(
                            filer,
                            clock,
                            (key, passed) -> state.update(key, s -> s.withPassed(passed)))
                        .withLiveOutput(live, runnerDid),
                    ring,
                    o.queue()),
                runs,
                clock),
            clock,
            ended -> RunRecords.usage(state, ended),
            minutes::write);
    RunPlanner planner =
        RunPlanner.forRunner(
            new RunPlanner.Settings(
                o.secrets(),
                o.stepTimeout(),
                o.runTimeout(),
                o.executor().hostEnvironment(env),
                o.trust()),
            access,
            sealed.owner(),
            clock);
    AskedLedger asked = new AskedLedger();
    PassExtras extras =
        dev.knotless.runner.engine.QueueWiring.extras(
            o, access, state, filer, planner, asked, jobs::submit, jobs::cancel, clock);
    RepoPass pass =
        new RepoPass(
            access::storeOf,
            access,
            state,
            filer,
            planner,
            RunSink.here(jobs::submit),
            cache.dir(),
            () ->
                o.paused() == null ? PausedOwners.none() : PausedOwners.read(o.paused(), runnerDid),
            clock,
            extras);
    if (executor instanceof dev.knotless.runner.exec.docker.DockerExecutor d
        && d.cacheStore() != null) {
      dev.knotless.runner.exec.cache.CacheStore caches = d.cacheStore();
      pass.withCaches(
          caches::takeKept,
          key -> {
            var gone = caches.removeRepo(key);
            LOG.info(
                "removed {} cache bases and kept sets of the deleted repository {}, {} bytes",
                gone.count(),
                key,
                gone.bytes());
          });
      pass.onClosedPulls(caches::forgetKept);
    }
    return new RunnerParts(executor, jobs, minutes, live, asked, extras, pass);
  }
}
