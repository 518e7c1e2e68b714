package dev.knotless.run.reconciler.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RemovedSettingsTest {

  private static List<String> found(Map<String, String> set) {
    return RemovedSettings.found(set.keySet(), n -> Optional.ofNullable(set.get(n)));
  }

  @Test
  void theRunModesSettingsAreFoundWhetherPropertiesOrEnvironmentVariables() {
    assertEquals(
        List.of(
            "KNOTLESS_RECONCILER_WORKER_EXECUTOR=docker",
            "knotless.reconciler.secrets-key-file=/k",
            "knotless.reconciler.worker.jobs=4",
            "knotless.reconciler.worker.mode=run"),
        found(
            Map.of(
                "knotless.reconciler.worker.jobs", "4",
                "KNOTLESS_RECONCILER_WORKER_EXECUTOR", "docker",
                "knotless.reconciler.worker.mode", "run",
                "knotless.reconciler.secrets-key-file", "/k",
                "knotless.reconciler.sweep", "600s")));
  }

  @Test
  void theQueueModeTheChartSetsAndTheSettingsLeftAreLetThrough() {
    assertEquals(
        List.of(),
        found(
            Map.of(
                "KNOTLESS_RECONCILER_WORKER_MODE", "queue",
                "knotless.reconciler.recovery.stale-after", "30s",
                "knotless.reconciler.secrets-file", "/s")));
  }

  @Test
  void theRefusalNamesTheKeysAndWhereTheirJobWentButNoValue() {
    String m = RemovedSettings.message(List.of("KNOTLESS_RECONCILER_WORKER_IMAGE=secret-image"));
    assertTrue(m.contains("KNOTLESS_RECONCILER_WORKER_IMAGE"), m);
    assertTrue(m.contains("knotless.scheduler"), m);
    assertTrue(!m.contains("secret-image"), m);
  }
}
