package dev.knotless.runtime.pods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.cache.CacheSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod kind reads the cache flags as the docker kind does: none unless a directory is given. */
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
  void aLimitOfZeroIsRefusedNamingTheFlag() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> caches(Map.of("cache-dir", "/c", "cache-max", "0")));
    assertTrue(e.getMessage().contains("cache-max"), e.getMessage());
  }
}
