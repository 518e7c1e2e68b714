package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import dev.knotless.runtime.pods.UnknownFields;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lints the chart and renders it twice with the embedded Helm, offline: with its defaults and with
 * every optional feature on. Each test checks something an operator installing it would notice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChartTest {
  private RenderedChart defaults;
  private RenderedChart allFeatures;

  @BeforeAll
  void render() {
    defaults = RenderedChart.render();
    allFeatures = RenderedChart.render("all-features.yaml");
  }

  Stream<RenderedChart> renders() {
    return Stream.of(defaults, allFeatures);
  }

  @Test
  void lintFindsNothingWrongEvenWhenStrict() {
    var result = new Helm(RenderedChart.chartDir()).lint().strict().call();
    assertFalse(result.isFailed(), () -> String.join("\n", result.getMessages()));
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyRenderedDocumentParsesAsItsKindWithNoUnknownField(RenderedChart chart) {
    assertFalse(chart.docs.isEmpty());
    for (var doc : chart.docs) {
      assertFalse(
          doc.typed() instanceof GenericKubernetesResource,
          () -> "fabric8 has no model for " + doc.kind() + ":\n" + doc.text());
      assertEquals(doc.kind(), doc.typed().getClass().getSimpleName(), doc.text());
      assertEquals(List.of(), UnknownFields.in(doc.typed()), doc.kind() + " " + doc.name());
    }
  }

  @Test
  void defaultsRenderTheFourServicesWithTheSchedulerAndLeaveTheOperatorObjectsOut() {
    assertEquals(
        Set.of(
            "ci-knotless-run-ingester",
            "ci-knotless-run-reconciler",
            "ci-knotless-run-check-writer",
            "ci-knotless-run-scheduler"),
        defaults.podSpecs().keySet());
    assertEquals(2, defaults.ofKind("Role").size(), "pods in the runs namespace, the Lease");
    assertEquals(2, defaults.ofKind("RoleBinding").size());
    for (String kind : List.of("ServiceMonitor", "PrometheusRule", "ConfigMap", "Namespace")) {
      assertEquals(List.of(), optional(defaults, kind), kind + " rendered by default");
    }
    assertEquals(
        Set.of("knotless-runs", RenderedChart.NAMESPACE),
        Set.copyOf(defaults.ofKind("NetworkPolicy").stream().map(d -> d.namespace()).toList()),
        "run pods are fenced and the release namespace closed by default");
  }

  @Test
  void checkWritersRunTwoRollingWithTheirStateInPostgresAndABudgetKeepingOneUp() {
    var writer = defaults.podSpecs().get("ci-knotless-run-check-writer");
    assertTrue(
        writer.getVolumes().stream().noneMatch(v -> v.getPersistentVolumeClaim() != null),
        "no claim: running checks are in PostgreSQL");
    assertTrue(
        writer.getContainers().get(0).getEnv().stream()
            .anyMatch(e -> e.getName().equals("QUARKUS_DATASOURCE_JDBC_URL")),
        "the check-writer reaches PostgreSQL");
    var deployment =
        defaults.ofKind("Deployment").stream()
            .map(d -> (io.fabric8.kubernetes.api.model.apps.Deployment) d.typed())
            .filter(d -> d.getMetadata().getName().equals("ci-knotless-run-check-writer"))
            .findFirst()
            .orElseThrow();
    assertEquals(2, deployment.getSpec().getReplicas());
    assertEquals("RollingUpdate", deployment.getSpec().getStrategy().getType());
    assertEquals(
        0, deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal());
    var budget =
        defaults.ofKind("PodDisruptionBudget").stream()
            .map(d -> (io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget) d.typed())
            .filter(b -> b.getMetadata().getName().equals("ci-knotless-run-check-writer"))
            .findFirst()
            .orElseThrow();
    assertEquals(1, budget.getSpec().getMaxUnavailable().getIntVal());
    assertEquals(
        deployment.getSpec().getSelector().getMatchLabels(),
        budget.getSpec().getSelector().getMatchLabels(),
        "the budget counts the check-writer's pods");
  }

  @Test
  void allFeaturesAddTheSchedulerItsRolesAndTheMonitoringObjects() {
    assertTrue(allFeatures.podSpecs().containsKey("ci-knotless-run-scheduler"));
    for (String kind : List.of("ServiceMonitor", "PrometheusRule", "ConfigMap", "Namespace")) {
      assertEquals(1, optional(allFeatures, kind).size(), kind);
    }
    assertEquals(2, allFeatures.ofKind("Role").size(), "pods in the runs namespace, the Lease");
    assertEquals(2, allFeatures.ofKind("RoleBinding").size());
    assertEquals(List.of(), allFeatures.ofKind("PodTemplate"), "run pods come from values");
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyDeploymentProbesStartReadyAndLiveOnTheManagementPortOnly(RenderedChart chart) {
    for (Deployment d : chart.typed(Deployment.class)) {
      for (Container c : d.getSpec().getTemplate().getSpec().getContainers()) {
        String where = d.getMetadata().getName() + "/" + c.getName();
        assertEquals("/q/health/started", c.getStartupProbe().getHttpGet().getPath(), where);
        assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath(), where);
        assertEquals("/q/health/live", c.getLivenessProbe().getHttpGet().getPath(), where);
        for (var probe :
            List.of(c.getStartupProbe(), c.getReadinessProbe(), c.getLivenessProbe())) {
          assertEquals("management", probe.getHttpGet().getPort().getStrVal(), where);
        }
        assertTrue(
            c.getStartupProbe().getPeriodSeconds() * c.getStartupProbe().getFailureThreshold()
                >= 120,
            where + ": a slow start (JVM, Flyway) gets minutes before a restart");
        assertEquals(
            List.of("management:9000"),
            c.getPorts().stream().map(p -> p.getName() + ":" + p.getContainerPort()).toList(),
            where + ": the management port is the one port the pod offers");
        Map<String, String> env = new java.util.HashMap<>();
        c.getEnv().stream()
            .filter(e -> e.getValue() != null)
            .forEach(e -> env.put(e.getName(), e.getValue()));
        assertEquals("127.0.0.1", env.get("QUARKUS_HTTP_HOST"), where + ": service port");
        assertEquals("0.0.0.0", env.get("QUARKUS_MANAGEMENT_HOST"), where);
        assertEquals("9000", env.get("QUARKUS_MANAGEMENT_PORT"), where);
      }
    }
    for (Service s : chart.typed(Service.class)) {
      assertEquals(
          List.of("management:9000"),
          s.getSpec().getPorts().stream().map(p -> p.getName() + ":" + p.getPort()).toList(),
          s.getMetadata().getName());
    }
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyDeploymentIsReachedByAMetricsServiceAndABudgetWhereOneProtectsSomething(
      RenderedChart chart) {
    for (Deployment d : chart.typed(Deployment.class)) {
      int replicas = d.getSpec().getReplicas();
      Map<String, String> podLabels = d.getSpec().getTemplate().getMetadata().getLabels();
      String name = d.getMetadata().getName();
      assertEquals(
          1,
          chart.typed(Service.class).stream()
              .filter(s -> podLabels.entrySet().containsAll(s.getSpec().getSelector().entrySet()))
              .count(),
          name + " has one Service");
      assertEquals(
          replicas > 1 ? 1 : 0,
          chart.typed(PodDisruptionBudget.class).stream()
              .filter(
                  p ->
                      podLabels
                          .entrySet()
                          .containsAll(p.getSpec().getSelector().getMatchLabels().entrySet()))
              .count(),
          name
              + " ("
              + replicas
              + " replicas) has a budget only when one can go and another stay: on one replica a"
              + " budget of maxUnavailable 1 protects nothing");
    }
    for (PodDisruptionBudget p : chart.typed(PodDisruptionBudget.class)) {
      assertEquals(1, p.getSpec().getMaxUnavailable().getIntVal());
      assertEquals(null, p.getSpec().getMinAvailable());
    }
  }

  @Test
  void aSingleIngesterGetsABudgetOnceItRunsTwo() {
    assertEquals(
        List.of(
            "ci-knotless-run-check-writer",
            "ci-knotless-run-reconciler",
            "ci-knotless-run-scheduler"),
        defaults.typed(PodDisruptionBudget.class).stream()
            .map(p -> p.getMetadata().getName())
            .sorted()
            .toList());
    RenderedChart two = RenderedChart.render(List.of(), Map.of("ingester.replicas", 2));
    assertTrue(
        two.typed(PodDisruptionBudget.class).stream()
            .anyMatch(p -> p.getMetadata().getName().equals("ci-knotless-run-ingester")));
  }

  @Test
  void largeEmptyDirsAreAskedForAsEphemeralStorage() {
    Map<String, Integer> expected =
        Map.of(
            "ci-knotless-run-reconciler",
            (1 + 10) * 1024,
            "ci-knotless-run-scheduler",
            (1 + 10 + 20) * 1024,
            "ci-knotless-run-check-writer",
            1024,
            "ci-knotless-run-ingester",
            1024);
    allFeatures
        .podSpecs()
        .forEach(
            (name, spec) -> {
              var requests = spec.getContainers().get(0).getResources().getRequests();
              assertEquals(
                  expected.get(name) + "Mi",
                  requests.get("ephemeral-storage").toString(),
                  name + ": /tmp and its emptyDirs' sizeLimits");
            });
    RenderedChart bigger =
        RenderedChart.render(
            List.of(),
            Map.of("scheduler.cache.sizeLimit", "2Ti", "scheduler.workSizeLimit", "512Mi"));
    assertEquals(
        (1024 + 2 * 1024 * 1024 + 512) + "Mi",
        bigger
            .podSpecs()
            .get("ci-knotless-run-scheduler")
            .getContainers()
            .get(0)
            .getResources()
            .getRequests()
            .get("ephemeral-storage")
            .toString());
    var e =
        assertThrows(
            RuntimeException.class,
            () -> RenderedChart.render(List.of(), Map.of("reconciler.cache.sizeLimit", "10G")));
    assertTrue(String.valueOf(e.getMessage()).contains("sizeLimit"), e.getMessage());
  }

  @Test
  void aMisspeltValueIsRefusedByName() {
    var e =
        assertThrows(
            RuntimeException.class,
            () -> RenderedChart.render(List.of(), Map.of("reconciller.replicas", 3)));
    assertTrue(String.valueOf(e.getMessage()).contains("reconciller"), e.getMessage());
  }

  @Test
  void aServiceWithoutCpuAndMemoryLimitsIsRefused() {
    var e =
        assertThrows(
            RuntimeException.class,
            () ->
                RenderedChart.render(List.of(RenderedChart.resource("no-limits.yaml")), Map.of()));
    String message = String.valueOf(e.getMessage());
    assertTrue(message.contains("checkWriter") && message.contains("memory"), message);
  }

  /**
   * The objects of {@code kind} an optional feature adds: every one but the list of watched
   * repositories (RepositoriesChartTest) and the run pods' overlay (PodOverlayChartTest), which
   * every release with its services has.
   */
  static List<RenderedChart.Doc> optional(RenderedChart chart, String kind) {
    return chart.ofKind(kind).stream()
        .filter(d -> !d.name().equals("ci-knotless-run-repositories"))
        .filter(d -> !d.name().equals("ci-knotless-run-pod-overlay"))
        .toList();
  }

  static EnvVar env(Container c, String name) {
    return c.getEnv().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(c.getName() + " has no " + name));
  }

  static PodSpec pod(RenderedChart chart, String component) {
    return chart.podSpecs().get("ci-knotless-run-" + component);
  }
}
