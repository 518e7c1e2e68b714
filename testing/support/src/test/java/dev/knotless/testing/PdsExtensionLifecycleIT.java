package dev.knotless.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;

/** Runs small test classes through JUnit itself to see when their servers start and stop. */
class PdsExtensionLifecycleIT {
  static final Map<String, Long> PIDS = new ConcurrentHashMap<>();

  @Test
  void suiteScopeSharesOneServerPerOptionsClassScopeGetsItsOwnAndAllAreStoppedAtTheEnd() {
    PIDS.clear();

    EngineTestKit.engine("junit-jupiter")
        .selectors(
            selectClass(OwnServer.class), selectClass(SharedA.class), selectClass(SharedB.class))
        .execute()
        .testEvents()
        .assertStatistics(stats -> stats.started(3).succeeded(3));

    assertEquals(3, PIDS.size(), PIDS.toString());
    assertEquals(PIDS.get("a"), PIDS.get("b"));
    assertNotEquals(PIDS.get("own"), PIDS.get("a"));
    PIDS.forEach(
        (name, pid) ->
            assertFalse(
                ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                name + "'s server (pid " + pid + ") still runs"));
  }

  @WithPds(scope = WithPds.Scope.CLASS, blobUploadLimit = 2048)
  static class OwnServer {
    @Test
    void records(PdsInstance pds) {
      assertEquals(2048, pds.blobUploadLimit());
      PIDS.put("own", pds.pid());
    }
  }

  @WithPds(blobUploadLimit = 4096)
  static class SharedA {
    @Test
    void records(PdsInstance pds) {
      assertEquals(4096, pds.blobUploadLimit());
      PIDS.put("a", pds.pid());
    }
  }

  @WithPds(blobUploadLimit = 4096)
  static class SharedB {
    @Test
    void records(PdsInstance pds) {
      PIDS.put("b", pds.pid());
    }
  }
}
