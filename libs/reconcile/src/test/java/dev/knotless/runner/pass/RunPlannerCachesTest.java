package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheUse;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.RepoAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What each run the planner makes may do with its workflow's caches. */
class RunPlannerCachesTest {

  private static final String SHA = "a".repeat(40);
  private static final String BASE = "b".repeat(40);
  private static final Watched REPO =
      new Watched(
          "alice.test/site",
          new RepoAddress("did:plc:alice", "alice.test", URI.create("http://127.0.0.1:9"), "site"),
          new RepoId("did:plc:alice", "3kabcdefghijk"));
  private static final RunPlanner PLANNER =
      new RunPlanner(new RunPlanner.Settings(null, Duration.ofMinutes(30), null, Map.of()));
  private static final PullRunPlanner.PullSubject PULL =
      new PullRunPlanner.PullSubject(
          "at://did:plc:bob/dev.knotless.pull/1",
          "refs/heads/f",
          SHA,
          "refs/heads/main",
          BASE,
          SHA);

  private static Workflow workflow(String yaml) {
    WorkflowSet set =
        WorkflowSet.load(
            Map.of(".knotless/workflows/ci.yml", yaml.getBytes(StandardCharsets.UTF_8)));
    return set.workflows().get(0);
  }

  private static final Workflow CACHED =
      workflow("on: {push: {}, pull: {}}\ncache: [node_modules]\nsteps: [{run: 'true'}]\n");
  private static final Workflow WITH_SECRETS =
      workflow(
          "on: {push: {}, pull: {}}\ncache: [node_modules]\nsecrets: [TOKEN]\n"
              + "steps: [{run: 'true'}]\n");

  /** The cache request a run carries for the docker executor. */
  private static CacheRequest caches(RunSpec spec) {
    return spec.options().get(CacheRequest.class, CacheRequest.NONE);
  }

  private static RunSpec push(Workflow w, String ref, RunClass runClass) throws Exception {
    return PLANNER
        .push(REPO, Path.of("/m"), w, ref, SHA, BASE, runClass, Map.of(), Instant.EPOCH)
        .prepare()
        .prepare();
  }

  private static RunSpec pull(Workflow w, boolean trusted) throws Exception {
    return PLANNER
        .pulls()
        .pull(REPO, Path.of("/m"), w, PULL, RunClass.OTHER, trusted, Instant.EPOCH)
        .prepare()
        .prepare();
  }

  @Test
  void aPushToTheDefaultBranchMayPromoteAndNoOtherPushMay() throws Exception {
    RunSpec main = push(CACHED, "refs/heads/main", RunClass.MAIN);
    assertEquals(CacheUse.PROMOTE_ON_PASS, caches(main).use());
    assertEquals(List.of("/work/node_modules"), caches(main).containerPaths());
    assertEquals("did:plc:alice/3kabcdefghijk", caches(main).repo(), "a rename keeps them");
    assertEquals(CacheUse.READ, caches(push(CACHED, "refs/heads/f", RunClass.OTHER)).use());
    assertEquals(CacheUse.READ, caches(push(CACHED, "refs/heads/main", RunClass.ASKED)).use());
  }

  @Test
  void aPullNeverPromotesAndAnUntrustedOneWithSecretsReadsApart() throws Exception {
    assertEquals(CacheUse.READ, caches(pull(CACHED, true)).use());
    assertEquals(CacheUse.READ, caches(pull(CACHED, false)).use());
    assertEquals(CacheUse.READ, caches(pull(WITH_SECRETS, true)).use());
    assertEquals(CacheUse.APART, caches(pull(WITH_SECRETS, false)).use());
  }
}
