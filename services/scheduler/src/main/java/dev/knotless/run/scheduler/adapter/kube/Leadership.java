package dev.knotless.run.scheduler.adapter.kube;

import dev.knotless.run.scheduler.app.PodRuns;
import dev.knotless.run.scheduler.app.SchedulerConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * One scheduler leads at a time, by a Lease. The leader runs the queue ({@link PodRuns#lead}); a
 * standby waits for the Lease. A leader that loses the Lease exits at once, so two never touch the
 * same pods: its pods go on running and the next leader adopts them. A leader that stops gives the
 * Lease up as it goes, so a standby takes over within one retry period.
 */
@ApplicationScoped
public class Leadership {
  private static final Logger LOG = Logger.getLogger(Leadership.class);

  private final KubernetesClient client;
  private final SchedulerConfig config;
  private final PodRuns runs;
  private final AtomicInteger leading = new AtomicInteger();
  private final String identity;
  private volatile CompletableFuture<?> election;
  private volatile boolean stopping;

  public Leadership(
      KubernetesClient client, SchedulerConfig config, PodRuns runs, MeterRegistry registry) {
    this.client = client;
    this.config = config;
    this.runs = runs;
    this.identity = config.identity().orElse("scheduler-" + UUID.randomUUID());
    registry.gauge("knotless.run.scheduler.leader", leading);
  }

  void start(@Observes StartupEvent ev) {
    // Ready to lead before standing for the Lease: a takeover then costs only adoption.
    runs.prepare();
    String namespace = config.leaseNamespace().orElse(config.namespace());
    LOG.infof("%s: standing for the Lease %s/%s", identity, namespace, config.leaseName());
    election =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(config.leaseName())
                    .withLock(new LeaseLock(namespace, config.leaseName(), identity))
                    .withLeaseDuration(config.leaseDuration())
                    .withRenewDeadline(config.renewDeadline())
                    .withRetryPeriod(config.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(this::started, this::stopped, this::newLeader))
                    .build())
            .build()
            .start();
  }

  private void started() {
    LOG.infof("%s: leading", identity);
    leading.set(1);
    try {
      runs.lead(identity);
    } catch (RuntimeException e) {
      LOG.errorf(e, "%s: could not take the queue over; exiting for another to lead", identity);
      Quarkus.asyncExit(1);
    }
  }

  private void stopped() {
    leading.set(0);
    if (stopping) {
      return;
    }
    // Another may lead now: touching a pod from here on could race it. Its runs go on in their
    // pods and the next leader adopts them.
    LOG.errorf("%s: lost the Lease; exiting so that only the leader touches pods", identity);
    Quarkus.asyncExit(1);
  }

  private void newLeader(String who) {
    if (!identity.equals(who)) {
      LOG.infof("%s: %s leads", identity, who);
    }
  }

  void stop(@Observes ShutdownEvent ev) {
    stopping = true;
    // Runs in flight stay in their pods, for the next leader to adopt: a rollout loses none.
    runs.stopTaking();
    CompletableFuture<?> e = election;
    if (e != null) {
      e.cancel(true);
    }
  }
}
