package dev.knotless.runner.exec.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Who reads and writes the caches, and where a cache path is in the container. */
class CacheRulesTest {

  @Test
  void onlyAPushToTheDefaultBranchPromotes() {
    assertEquals(CacheUse.PROMOTE_ON_PASS, CacheRules.push(true, true));
    assertEquals(CacheUse.READ, CacheRules.push(true, false));
    assertEquals(CacheUse.READ, CacheRules.pull(true, true, false));
    assertEquals(CacheUse.READ, CacheRules.pull(true, true, true));
    assertEquals(CacheUse.READ, CacheRules.pull(true, false, false));
  }

  @Test
  void anUntrustedRunOfAWorkflowAskingForSecretsReadsApart() {
    assertEquals(CacheUse.APART, CacheRules.pull(true, false, true));
  }

  @Test
  void aWorkflowWithNoCachePathsMountsNothing() {
    assertEquals(CacheUse.NONE, CacheRules.push(false, true));
    assertEquals(CacheUse.NONE, CacheRules.pull(false, false, true));
    assertEquals(
        CacheUse.NONE, new CacheRequest("a/b", "ci", List.of(), CacheUse.PROMOTE_ON_PASS).use());
  }

  @Test
  void aRelativeCachePathIsUnderTheCheckout() {
    CacheRequest r =
        new CacheRequest(
            "a/b", "ci", List.of("node_modules", "/root/.npm/", "./target//deps"), CacheUse.READ);
    assertEquals(
        List.of("/work/node_modules", "/root/.npm", "/work/target/deps"), r.containerPaths());
    assertThrows(IllegalArgumentException.class, () -> CacheRequest.containerPath("/"));
  }

  @Test
  void aCachesNameHashesItsRepositoryWorkflowAndPathApart() {
    String name = CacheNames.name("alice/site", "ci", "/root/.npm");
    assertEquals(3, name.split("\\.").length);
    assertEquals(CacheNames.hash("alice/site"), name.split("\\.")[0]);
    // Two repositories' caches of the same workflow and path are never one.
    assertEquals(false, name.equals(CacheNames.name("bob/site", "ci", "/root/.npm")));
  }
}
