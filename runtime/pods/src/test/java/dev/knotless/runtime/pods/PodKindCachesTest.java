package dev.knotless.runtime.pods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheSettings;
import dev.knotless.runner.exec.pod.PodSettings;
import dev.knotless.runner.exec.pod.RunPod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The pod kind reads the cache flags as the docker kind does: none unless a directory is given; and
 * with caches on a node, a run pod holds them as hostPath volumes and is held to that node.
 */
class PodKindCachesTest {

  private static CacheSettings caches(Map<String, String> values) {
    assertTrue(new PodKind().flags().containsAll(values.keySet()), "a flag the kind does not own");
    return new PodKind().settings(ExecutorConfig.of(values, Map.of())).caches();
  }

  @Test
  void noCacheDirectoryKeepsNoCaches() {
    assertFalse(caches(Map.of()).enabled());
  }

  @Test
  void theDirectoryLimitAndFloorAreReadInGiB() {
    CacheSettings c =
        caches(
            Map.of(
                "cache-dir", "/var/lib/knotless/run-caches", "cache-max", "8", "disk-floor", "0"));
    assertEquals(Path.of("/var/lib/knotless/run-caches"), c.dir());
    assertEquals(8L << 30, c.maxBytes());
    assertEquals(0L, c.floorBytes());
  }

  @Test
  void cacheOnNodeNamesTheNodeRunsAreHeldToAndTheirCachesBecomeItsDirectories() {
    var values = Map.of("cache-dir", "/var/lib/knotless/run-caches", "cache-on-node", "node-7");
    assertTrue(new PodKind().flags().containsAll(values.keySet()));
    assertEquals("node-7", new PodKind().settings(ExecutorConfig.of(values, Map.of())).cacheNode());
    assertEquals(
        null,
        new PodKind().settings(ExecutorConfig.of(Map.of("cache-dir", "/c"), Map.of())).cacheNode(),
        "by copy unless a node is named");

    RunSpec spec =
        RunSpec.of(
            Path.of("/m"), "a".repeat(40), List.of(ExecStep.run("s", "true", Duration.ZERO)));
    RunPod pod =
        RunPod.of(PodSettings.defaults(), spec, "did:plc:abc", "run-1")
            .withCaches(
                List.of(
                    new RunPod.HostMount(
                        "/var/lib/knotless/run-caches/runs/run-1/0/merged", "/cache")),
                "node-7");
    PodSpec p = RunPods.toPod(pod).getSpec();
    Volume v =
        p.getVolumes().stream().filter(x -> x.getHostPath() != null).findFirst().orElseThrow();
    assertEquals("/var/lib/knotless/run-caches/runs/run-1/0/merged", v.getHostPath().getPath());
    assertEquals("Directory", v.getHostPath().getType());
    assertTrue(
        p.getContainers().get(0).getVolumeMounts().stream()
            .anyMatch(m -> m.getName().equals(v.getName()) && m.getMountPath().equals("/cache")));
    var term =
        p.getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms()
            .get(0)
            .getMatchFields()
            .get(0);
    assertEquals("metadata.name", term.getKey());
    assertEquals(List.of("node-7"), term.getValues());

    PodSpec plain =
        RunPods.toPod(RunPod.of(PodSettings.defaults(), spec, "did:plc:abc", "run-1")).getSpec();
    assertTrue(plain.getVolumes().stream().allMatch(x -> x.getHostPath() == null));
    assertEquals(null, plain.getAffinity());
  }

  @Test
  void aLimitOfZeroIsRefusedNamingTheFlag() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> caches(Map.of("cache-dir", "/c", "cache-max", "0")));
    assertTrue(e.getMessage().contains("cache-max"), e.getMessage());
  }
}
