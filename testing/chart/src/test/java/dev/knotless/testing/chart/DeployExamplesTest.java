package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runtime.pods.UnknownFields;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The manifests under deploy/ are valid objects and agree with what the chart expects. */
class DeployExamplesTest {
  private static final Set<String> ENFORCED = Set.of("baseline", "restricted");

  static Path deploy(String file) {
    return RenderedChart.chartDir().resolve("../../deploy").resolve(file).normalize();
  }

  @Test
  void theGvisorRuntimeClassIsTheOneTheChartPinsRunPodsTo() {
    var docs = RenderedChart.parseFile(deploy("runtimeclass-gvisor.yaml"));
    assertEquals(1, docs.size());
    RuntimeClass rc = (RuntimeClass) docs.get(0).typed();
    assertEquals(List.of(), UnknownFields.in(rc));
    assertEquals("runsc", rc.getHandler());
    var chartDefault =
        RenderedChart.render(List.of(), java.util.Map.of("scheduler.enabled", true))
            .podSpecs()
            .get("ci-knotless-run-scheduler")
            .getContainers()
            .get(0);
    assertEquals(
        rc.getMetadata().getName(),
        ChartTest.env(chartDefault, "KNOTLESS_SCHEDULER_RUNTIME_CLASS").getValue());
  }

  @Test
  void theRunsNamespaceRefusesPrivilegedAndHostPodsWhetherMadeByHandOrByTheChart() {
    Namespace byHand =
        (Namespace) RenderedChart.parseFile(deploy("namespace-runs.yaml")).get(0).typed();
    Namespace byChart = RenderedChart.render("all-features.yaml").typed(Namespace.class).get(0);
    for (Namespace ns : List.of(byHand, byChart)) {
      assertEquals("knotless-runs", ns.getMetadata().getName());
      String enforce = ns.getMetadata().getLabels().get("pod-security.kubernetes.io/enforce");
      assertTrue(ENFORCED.contains(enforce), "enforce=" + enforce);
      assertEquals(List.of(), UnknownFields.in(ns));
    }
  }
}
