package dev.knotless.testing.chart;

import static dev.knotless.testing.chart.ChartTest.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.pod.PodOverlay;
import dev.knotless.runner.exec.pod.SpecPatch;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The run-pod settings an operator gives the chart ({@code runs.imagePullSecrets}, {@code
 * .nodeSelector}, {@code .tolerations}, {@code .priorityClassName}, {@code .podSpecPatch}) reach
 * the scheduler as one JSON file from a ConfigMap, which the scheduler's own reader takes as
 * written; a patch naming a field the runner guarantees fails the render, for every field the
 * scheduler itself would refuse.
 */
class PodOverlayChartTest {
  private static final String CONFIG_MAP = "ci-knotless-run-pod-overlay";

  private static String overlayJson(RenderedChart chart) {
    return chart.ofKind("ConfigMap").stream()
        .filter(d -> d.name().equals(CONFIG_MAP))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + CONFIG_MAP))
        .tree()
        .path("data")
        .path("overlay.json")
        .asText();
  }

  private static Deployment scheduler(RenderedChart chart) {
    return chart.typed(Deployment.class).stream()
        .filter(d -> d.getMetadata().getName().equals("ci-knotless-run-scheduler"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theSettingsReachTheSchedulersFileAsItsReaderTakesThem() {
    RenderedChart chart = RenderedChart.render("pod-overlay.yaml");
    PodOverlay overlay = PodOverlay.fromJson(overlayJson(chart));
    assertEquals(List.of("runs-registry"), overlay.imagePullSecrets());
    assertEquals(Map.of("knotless.dev/runs", "true"), overlay.nodeSelector());
    assertEquals(
        List.of(
            new PodOverlay.Toleration("knotless.dev/runs", "Exists", null, "NoSchedule", null),
            new PodOverlay.Toleration("spot", "Equal", "yes", "NoExecute", 120L)),
        overlay.tolerations());
    assertEquals("ci-low", overlay.priorityClassName());
    String patch = overlay.specPatch().json();
    assertTrue(patch.contains("\"terminationGracePeriodSeconds\":5"), patch);
    assertTrue(patch.contains("\"topologyKey\":\"kubernetes.io/hostname\""), patch);
  }

  @Test
  void theSchedulerReadsTheFileFromTheConfigMapAndRollsWhenItChanges() {
    RenderedChart chart = RenderedChart.render("pod-overlay.yaml");
    var pod = scheduler(chart).getSpec().getTemplate().getSpec();
    var c = pod.getContainers().get(0);
    assertEquals(
        "/etc/knotless/pod-overlay/overlay.json",
        env(c, "KNOTLESS_SCHEDULER_POD_OVERLAY_FILE").getValue());
    var volume =
        pod.getVolumes().stream()
            .filter(v -> v.getName().equals("pod-overlay"))
            .findFirst()
            .orElseThrow();
    assertEquals(CONFIG_MAP, volume.getConfigMap().getName());
    var mount =
        c.getVolumeMounts().stream()
            .filter(m -> m.getName().equals("pod-overlay"))
            .findFirst()
            .orElseThrow();
    assertEquals("/etc/knotless/pod-overlay", mount.getMountPath());
    assertEquals(Boolean.TRUE, mount.getReadOnly());
    String checksum = checksum(chart);
    assertEquals(checksum, checksum(RenderedChart.render("pod-overlay.yaml")));
    assertNotEquals(
        checksum,
        checksum(
            RenderedChart.render(
                List.of(RenderedChart.resource("pod-overlay.yaml")),
                Map.of("runs.priorityClassName", "ci-high"))),
        "a changed overlay rolls the scheduler, which reads it only at start");
  }

  @Test
  void byDefaultTheFileLaysNothingOverARunPod() {
    RenderedChart chart = RenderedChart.render();
    assertTrue(PodOverlay.fromJson(overlayJson(chart)).isEmpty(), overlayJson(chart));
    assertEquals(
        List.of(),
        RenderedChart.render(List.of(), Map.of("scheduler.enabled", false))
            .ofKind("ConfigMap")
            .stream()
            .filter(d -> d.name().equals(CONFIG_MAP))
            .toList(),
        "no scheduler, no overlay");
  }

  @Test
  void aPatchNamingAnyFieldTheSchedulerGuaranteesFailsTheRenderByName() {
    assertTrue(
        SpecPatch.PROTECTED
            .keySet()
            .containsAll(
                List.of(
                    "runtimeClassName",
                    "securityContext",
                    "automountServiceAccountToken",
                    "containers",
                    "volumes")));
    for (String field : SpecPatch.PROTECTED.keySet()) {
      var e =
          assertThrows(
              RuntimeException.class,
              () -> RenderedChart.render(List.of(), Map.of("runs.podSpecPatch." + field, "x")),
              field + " was accepted");
      assertTrue(
          String.valueOf(e.getMessage()).contains("runs.podSpecPatch." + field + ":"),
          field + ": " + e.getMessage());
    }
    // A field the runner has no guarantee on is the patch's to set.
    PodOverlay allowed =
        PodOverlay.fromJson(
            overlayJson(
                RenderedChart.render(List.of(), Map.of("runs.podSpecPatch.dnsPolicy", "Default"))));
    assertEquals("{\"dnsPolicy\":\"Default\"}", allowed.specPatch().json());
  }

  @Test
  void theSchemaRefusesAMalformedSetting() {
    for (Map.Entry<String, Object> bad :
        List.<Map.Entry<String, Object>>of(
            Map.entry("runs.tolerations[0].effect", "NoRun"),
            Map.entry("runs.tolerations[0].tolerationSecs", 5),
            Map.entry("runs.nodeSelector.gpu", true),
            Map.entry("runs.imagePullSecrets[0]", "Not_A_Name"),
            Map.entry("runs.priorityClassName", "Low Priority"))) {
      var e =
          assertThrows(
              RuntimeException.class,
              () -> RenderedChart.render(List.of(), Map.of(bad.getKey(), bad.getValue())),
              bad.getKey() + " was accepted");
      String message = String.valueOf(e.getMessage());
      assertTrue(message.contains("runs"), bad.getKey() + ": " + message);
    }
  }

  private static String checksum(RenderedChart chart) {
    return scheduler(chart)
        .getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get("checksum/pod-overlay");
  }
}
