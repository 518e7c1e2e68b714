package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Scaling the reconcilers on their backlog, the doorbells waiting for a pass (they only queue runs;
 * the scheduler runs them), by a KEDA ScaledObject reading Prometheus or by an HPA on an external
 * metric. The autoscaler owns the replica count, and the series it reads are ones a service
 * exports.
 */
class ScalingChartTest {
  private static final String RECONCILER = "ci-knotless-run-reconciler";

  @Test
  void noAutoscalerByDefault() {
    RenderedChart chart = RenderedChart.render();
    assertTrue(chart.ofKind("ScaledObject").isEmpty());
    assertTrue(chart.ofKind("HorizontalPodAutoscaler").isEmpty());
    assertEquals(2, reconciler(chart).getSpec().getReplicas());
  }

  @Test
  void kedaScalesReconcilersOnDoorbellLagOnly() {
    RenderedChart chart = RenderedChart.render(List.of(), Map.of("autoscaling.mode", "keda"));
    JsonNode so = only(chart, "ScaledObject");
    JsonNode spec = so.path("spec");
    assertEquals(RECONCILER, spec.path("scaleTargetRef").path("name").asText());
    assertEquals("Deployment", spec.path("scaleTargetRef").path("kind").asText());
    assertEquals(2, spec.path("minReplicaCount").asInt());
    assertEquals(8, spec.path("maxReplicaCount").asInt());
    assertNull(
        reconciler(chart).getSpec().getReplicas(), "KEDA owns the count; an upgrade keeps it");
    Map<String, JsonNode> triggers = triggers(spec);
    assertEquals(
        List.of("doorbell-lag"),
        List.copyOf(triggers.keySet()),
        "the reconcilers only queue runs: waiting runs are the scheduler's, not theirs to scale on");
    JsonNode t = triggers.get("doorbell-lag");
    assertEquals("prometheus", t.path("type").asText());
    assertEquals(
        "http://prometheus-operated.monitoring.svc:9090",
        t.path("metadata").path("serverAddress").asText());
    String lag = t.path("metadata").path("query").asText();
    assertTrue(lag.contains("service=\"" + RECONCILER + "\""), lag);
    assertTrue(lag.contains("namespace=\"knotless\""), lag);
    assertEquals("20", t.path("metadata").path("threshold").asText());
    assertEquals(java.util.Set.of("knotless_run_doorbells_waiting"), PromQl.metricNames(lag));
    var budget =
        chart.typed(PodDisruptionBudget.class).stream()
            .filter(p -> p.getMetadata().getName().equals(RECONCILER))
            .findFirst();
    assertTrue(budget.isPresent(), "the autoscaler's minimum of 2 keeps the budget");
    assertEquals(
        2,
        chart.typed(Deployment.class).stream()
            .filter(d -> d.getMetadata().getName().endsWith("-scheduler"))
            .findFirst()
            .orElseThrow()
            .getSpec()
            .getReplicas(),
        "the scheduler keeps its fixed leader and standby");
  }

  @Test
  void withTheSchedulerOffTheReconcilersStillScaleOnDoorbellsOnly() {
    RenderedChart chart =
        RenderedChart.render(
            List.of(), Map.of("autoscaling.mode", "keda", "scheduler.enabled", false));
    assertEquals(
        List.of("doorbell-lag"),
        List.copyOf(triggers(only(chart, "ScaledObject").path("spec")).keySet()),
        "no reconciler runs a run, so none is added for the queue");
  }

  @Test
  void anHpaReadsTheSameSignalAsAnExternalMetric() {
    RenderedChart chart =
        RenderedChart.render(
            List.of(),
            Map.of(
                "autoscaling.mode", "hpa",
                "autoscaling.reconciler.minReplicas", 3,
                "autoscaling.reconciler.maxReplicas", 12));
    assertTrue(chart.ofKind("ScaledObject").isEmpty());
    HorizontalPodAutoscaler hpa = chart.typed(HorizontalPodAutoscaler.class).get(0);
    assertEquals(RECONCILER, hpa.getSpec().getScaleTargetRef().getName());
    assertEquals(3, hpa.getSpec().getMinReplicas());
    assertEquals(12, hpa.getSpec().getMaxReplicas());
    assertNull(reconciler(chart).getSpec().getReplicas());
    List<String> metrics = new ArrayList<>();
    for (var m : hpa.getSpec().getMetrics()) {
      assertEquals("External", m.getType());
      assertEquals("AverageValue", m.getExternal().getTarget().getType());
      assertEquals(
          Map.of("namespace", "knotless", "service", RECONCILER),
          m.getExternal().getMetric().getSelector().getMatchLabels());
      metrics.add(m.getExternal().getMetric().getName());
    }
    assertEquals(List.of("knotless_run_doorbells_waiting"), metrics);
  }

  @Test
  void aMinimumAboveTheMaximumOrAnUnknownModeIsRefused() {
    var e =
        assertThrows(
            RuntimeException.class,
            () ->
                RenderedChart.render(
                    List.of(),
                    Map.of(
                        "autoscaling.mode", "keda",
                        "autoscaling.reconciler.minReplicas", 5,
                        "autoscaling.reconciler.maxReplicas", 3)));
    assertTrue(e.getMessage().contains("maxReplicas"), e.getMessage());
    e =
        assertThrows(
            RuntimeException.class,
            () -> RenderedChart.render(List.of(), Map.of("autoscaling.mode", "vpa")));
    assertTrue(e.getMessage().contains("autoscaling"), e.getMessage());
  }

  @Test
  void theSeriesTheAutoscalerReadsAreOnesTheReconcilerIsCheckedToExport() {
    RenderedChart chart = RenderedChart.render(List.of(), Map.of("autoscaling.mode", "keda"));
    java.util.Set<String> read = new java.util.TreeSet<>();
    triggers(only(chart, "ScaledObject").path("spec"))
        .values()
        .forEach(t -> read.addAll(PromQl.metricNames(t.path("metadata").path("query").asText())));
    java.util.Set<String> unexported = new java.util.TreeSet<>(read);
    unexported.removeAll(ObservabilityTest.exported());
    assertEquals(java.util.Set.of(), unexported, "docs/metrics.md");
  }

  private static Deployment reconciler(RenderedChart chart) {
    return chart.typed(Deployment.class).stream()
        .filter(d -> d.getMetadata().getName().equals(RECONCILER))
        .findFirst()
        .orElseThrow();
  }

  private static JsonNode only(RenderedChart chart, String kind) {
    List<RenderedChart.Doc> docs = chart.ofKind(kind);
    assertEquals(1, docs.size(), kind);
    return docs.get(0).tree();
  }

  private static Map<String, JsonNode> triggers(JsonNode spec) {
    Map<String, JsonNode> byName = new java.util.LinkedHashMap<>();
    Stream.of(spec.path("triggers"))
        .flatMap(
            t -> {
              List<JsonNode> l = new ArrayList<>();
              t.forEach(l::add);
              return l.stream();
            })
        .forEach(t -> byName.put(t.path("name").asText(), t));
    return byName;
  }
}
