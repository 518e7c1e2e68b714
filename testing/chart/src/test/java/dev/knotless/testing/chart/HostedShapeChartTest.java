package dev.knotless.testing.chart;

import static dev.knotless.testing.chart.ChartTest.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A {@code helm install} with no values runs jobs one way only: the reconcilers queue runs and the
 * scheduler runs each as a pod under the gVisor RuntimeClass. No reconciler is given an executor, a
 * docker daemon or a place to run steps, and the values that once chose them are refused by name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostedShapeChartTest {
  private RenderedChart defaults;

  @BeforeAll
  void render() {
    defaults = RenderedChart.render();
  }

  @Test
  void defaultsRenderTheSchedulerWithALeaderAndAStandbyAndItsToken() {
    Deployment scheduler =
        defaults.typed(Deployment.class).stream()
            .filter(d -> d.getMetadata().getName().equals("ci-knotless-run-scheduler"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no scheduler by default"));
    assertEquals(2, scheduler.getSpec().getReplicas());
    var pod = scheduler.getSpec().getTemplate().getSpec();
    assertEquals(Boolean.TRUE, pod.getAutomountServiceAccountToken());
    assertEquals("ci-knotless-run-scheduler", pod.getServiceAccountName());
    var c = pod.getContainers().get(0);
    assertEquals("knotless-runs", env(c, "KNOTLESS_SCHEDULER_NAMESPACE").getValue());
    assertEquals("runsc", env(c, "KNOTLESS_SCHEDULER_RUNTIME_CLASS").getValue());
    assertEquals(
        "runsc",
        env(c, "KNOTLESS_SCHEDULER_TRUSTED_RUNTIME_CLASS").getValue(),
        "vouched code too stays under gVisor unless the operator names another class");
  }

  @Test
  void defaultsGrantTheSchedulerItsPodsExecAndLeaseAndNothingElse() {
    assertEquals(List.of(), defaults.ofKind("ClusterRole"));
    assertEquals(List.of(), defaults.ofKind("ClusterRoleBinding"));
    assertEquals(new TreeSet<>(SchedulerChartTest.GRANTS), SchedulerChartTest.grants(defaults));
  }

  @Test
  void defaultReconcilersOnlyQueueAndAreGivenNothingToRunStepsWith() {
    var pod = ChartTest.pod(defaults, "reconciler");
    var c = pod.getContainers().get(0);
    assertEquals("queue", env(c, "KNOTLESS_RECONCILER_WORKER_MODE").getValue());
    List<String> worker =
        c.getEnv().stream()
            .map(EnvVar::getName)
            .filter(n -> n.startsWith("KNOTLESS_RECONCILER_WORKER_"))
            .toList();
    assertEquals(List.of("KNOTLESS_RECONCILER_WORKER_MODE"), worker);
    assertTrue(
        c.getEnv().stream().noneMatch(v -> v.getName().equals("DOCKER_HOST")), "no docker daemon");
    assertEquals(
        List.of("tmp", "cache", "repositories"),
        pod.getVolumes().stream().map(v -> v.getName()).toList(),
        "no work directory for checkouts: a reconciler checks nothing out to run");
    assertEquals(
        null,
        pod.getTerminationGracePeriodSeconds(),
        "no runs to wait for at a stop: Kubernetes' default grace");
  }

  @Test
  void reconcilerEnvCannotBringTheRunModeOrADockerDaemonBack() {
    for (String name :
        List.of(
            "KNOTLESS_RECONCILER_WORKER_MODE",
            "KNOTLESS_RECONCILER_WORKER_EXECUTOR",
            "KNOTLESS_RECONCILER_WORKER_DOCKER_HOST",
            "DOCKER_HOST")) {
      var e =
          assertThrows(
              RuntimeException.class,
              () ->
                  RenderedChart.render(
                      List.of(),
                      Map.of("reconciler.env[0].name", name, "reconciler.env[0].value", "run")),
              name + " was accepted");
      assertTrue(
          String.valueOf(e.getMessage()).contains("reconciler.env may not set " + name),
          e.getMessage());
    }
    var c =
        ChartTest.pod(
                RenderedChart.render(
                    List.of(),
                    Map.of(
                        "reconciler.env[0].name", "QUARKUS_LOG_LEVEL",
                        "reconciler.env[0].value", "DEBUG")),
                "reconciler")
            .getContainers()
            .get(0);
    assertEquals("DEBUG", env(c, "QUARKUS_LOG_LEVEL").getValue(), "other variables still pass");
  }

  @Test
  void theValuesThatChoseTheReconcilersRunModeAreRefusedByName() {
    // Each old value, and the word the schema's error must name.
    Map<String, String> old =
        Map.of(
            "reconciler.worker.executor", "worker",
            "reconciler.worker.dockerHost", "worker",
            "reconciler.worker.jobs", "worker",
            "autoscaling.reconciler.waitingRunsPerReplica", "waitingRunsPerReplica");
    old.forEach(
        (key, named) -> {
          var e =
              assertThrows(
                  RuntimeException.class,
                  () -> RenderedChart.render(List.of(), Map.of(key, "1")),
                  key + " was accepted");
          String message = String.valueOf(e.getMessage());
          assertTrue(message.contains(named), key + ": " + message);
        });
  }
}
