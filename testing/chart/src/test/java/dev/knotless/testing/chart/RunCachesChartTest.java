package dev.knotless.testing.chart;

import static dev.knotless.testing.chart.ChartTest.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs' caches on the scheduler's own volume (scheduler.runCaches): off by default, with the
 * scheduler as locked down as every service; on, the volume, the settings it reads, and the root
 * and capabilities its overlay mounts need.
 */
class RunCachesChartTest {

  private static PodSpec scheduler(Map<String, Object> sets) {
    return ChartTest.pod(RenderedChart.render(List.of(), sets), "scheduler");
  }

  private static Volume volume(PodSpec pod, String name) {
    return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst().orElse(null);
  }

  @Test
  void offByDefaultTheSchedulerKeepsNoCachesAndAddsNoCapability() {
    PodSpec pod = scheduler(Map.of());
    Container c = pod.getContainers().get(0);
    assertTrue(
        c.getEnv().stream().noneMatch(v -> v.getName().equals("KNOTLESS_SCHEDULER_RUN_CACHE_DIR")));
    assertNull(volume(pod, "run-caches"));
    assertEquals(List.of(), c.getSecurityContext().getCapabilities().getAdd());
    assertTrue(c.getSecurityContext().getRunAsNonRoot());
  }

  @Test
  void onTheBasesLiveOnAVolumeOfTheSchedulersOwnWithTheFloorAndLimitFromValues() {
    PodSpec pod =
        scheduler(
            Map.of(
                "scheduler.runCaches.enabled",
                true,
                "scheduler.runCaches.size",
                "80Gi",
                "scheduler.runCaches.maxGiB",
                8,
                "scheduler.runCaches.diskFloorGiB",
                3));
    Container c = pod.getContainers().get(0);
    assertEquals(
        "/var/lib/knotless/run-caches", env(c, "KNOTLESS_SCHEDULER_RUN_CACHE_DIR").getValue());
    assertEquals("8", env(c, "KNOTLESS_SCHEDULER_RUN_CACHE_MAX").getValue());
    assertEquals("3", env(c, "KNOTLESS_SCHEDULER_DISK_FLOOR").getValue());
    assertEquals(new Quantity("80Gi"), volume(pod, "run-caches").getEmptyDir().getSizeLimit());
    assertTrue(
        c.getVolumeMounts().stream()
            .anyMatch(
                m ->
                    m.getName().equals("run-caches")
                        && m.getMountPath().equals("/var/lib/knotless/run-caches")));
    // The emptyDir counts in what the scheduler asks of the node's disk.
    Quantity asked = c.getResources().getRequests().get("ephemeral-storage");
    assertTrue(
        Quantity.getAmountInBytes(asked).longValue() > 80L << 30,
        "the ephemeral-storage request leaves out the cache volume: " + asked);
    assertEquals(
        List.of("SYS_ADMIN", "CHOWN", "FOWNER", "DAC_OVERRIDE", "MKNOD"),
        c.getSecurityContext().getCapabilities().getAdd());
    assertEquals(0L, c.getSecurityContext().getRunAsUser());
    assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
  }

  @Test
  void aStorageClassGivesAVolumeMadeAndRemovedWithTheSchedulersPod() {
    PodSpec pod =
        scheduler(
            Map.of(
                "scheduler.runCaches.enabled",
                true,
                "scheduler.runCaches.storageClassName",
                "fast-ssd"));
    var claim = volume(pod, "run-caches").getEphemeral().getVolumeClaimTemplate().getSpec();
    assertEquals("fast-ssd", claim.getStorageClassName());
    assertEquals(new Quantity("50Gi"), claim.getResources().getRequests().get("storage"));
  }

  @Test
  void onTheNodeTheBasesAreADirectoryOfTheNodeTheSchedulerMountsIntoAndRunsMayMount() {
    RenderedChart chart =
        RenderedChart.render(
            List.of(),
            Map.of(
                "scheduler.runCaches.enabled",
                true,
                "scheduler.runCaches.placement",
                "node",
                "runs.createNamespace",
                true));
    PodSpec pod = ChartTest.pod(chart, "scheduler");
    Container c = pod.getContainers().get(0);
    var hostPath = volume(pod, "run-caches").getHostPath();
    assertEquals("/var/lib/knotless/run-caches", hostPath.getPath());
    assertEquals("DirectoryOrCreate", hostPath.getType());
    var mount =
        c.getVolumeMounts().stream()
            .filter(m -> m.getName().equals("run-caches"))
            .findFirst()
            .orElseThrow();
    // The same path as on the node, so the overlays it mounts are where a run pod's volume points.
    assertEquals("/var/lib/knotless/run-caches", mount.getMountPath());
    assertEquals("Bidirectional", mount.getMountPropagation());
    assertTrue(
        c.getSecurityContext().getPrivileged(), "Bidirectional needs a privileged container");
    assertEquals(
        "/var/lib/knotless/run-caches", env(c, "KNOTLESS_SCHEDULER_RUN_CACHE_DIR").getValue());
    assertEquals(
        "spec.nodeName",
        env(c, "KNOTLESS_SCHEDULER_RUN_CACHE_NODE").getValueFrom().getFieldRef().getFieldPath());
    // Run pods with a host path: baseline would refuse them.
    String runs =
        chart.ofKind("Namespace").get(0).tree().path("metadata").path("labels").toString();
    assertTrue(runs.contains("\"pod-security.kubernetes.io/enforce\":\"privileged\""), runs);

    PodSpec copy = scheduler(Map.of("scheduler.runCaches.enabled", true));
    Container cc = copy.getContainers().get(0);
    assertTrue(
        cc.getEnv().stream()
            .noneMatch(v -> v.getName().equals("KNOTLESS_SCHEDULER_RUN_CACHE_NODE")),
        "copy, the default, holds no run to a node");
    assertNull(cc.getSecurityContext().getPrivileged());
    String baseline =
        RenderedChart.render(
                List.of(),
                Map.of("scheduler.runCaches.enabled", true, "runs.createNamespace", true))
            .ofKind("Namespace")
            .get(0)
            .tree()
            .path("metadata")
            .path("labels")
            .toString();
    assertTrue(baseline.contains("\"pod-security.kubernetes.io/enforce\":\"baseline\""), baseline);
  }

  @Test
  void theSchemaRefusesAFloorBelowZeroAndALimitOfZero() {
    assertThrows(
        RuntimeException.class, () -> scheduler(Map.of("scheduler.runCaches.diskFloorGiB", -1)));
    assertThrows(RuntimeException.class, () -> scheduler(Map.of("scheduler.runCaches.maxGiB", 0)));
  }
}
