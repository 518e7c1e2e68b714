package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.plan.RunOrder;
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
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which runs get {@code --trusted-runtime}: a push to a repository of an owner named with {@code
 * --trust}, and nothing else, so every pull and merge-queue batch runs under {@code --runtime}
 * (gVisor) whoever opened it.
 */
class RunPlannerTrustTest {

  private static final String SHA = "a".repeat(40);
  private static final String BASE = "b".repeat(40);
  private static final Watched ALICES =
      new Watched(
          "alice.test/site",
          new RepoAddress("did:plc:alice", "alice.test", URI.create("http://127.0.0.1:9"), "site"),
          new RepoId("did:plc:alice", "3kabcdefghijk"));
  private static final Watched CAROLS =
      new Watched(
          "carol.test/site",
          new RepoAddress("did:plc:carol", "carol.test", URI.create("http://127.0.0.1:9"), "site"),
          new RepoId("did:plc:carol", "3kabcdefghijk"));
  private static final RunPlanner TRUSTING_ALICE =
      new RunPlanner(
          new RunPlanner.Settings(
              null, Duration.ofMinutes(30), null, Map.of(), Set.of("did:plc:alice")));
  private static final Workflow CI =
      WorkflowSet.load(
              Map.of(
                  ".knotless/workflows/ci.yml",
                  "on: {push: {}, pull: {}}\nsteps: [{run: 'true'}]\n"
                      .getBytes(StandardCharsets.UTF_8)))
          .workflows()
          .get(0);

  private static boolean pushTrusted(Watched repo) throws Exception {
    return TRUSTING_ALICE
        .push(
            repo,
            Path.of("/m"),
            CI,
            "refs/heads/main",
            SHA,
            BASE,
            RunClass.MAIN,
            Map.of(),
            Instant.EPOCH)
        .prepare()
        .prepare()
        .trustedCode();
  }

  @Test
  void aPushToATrustedOwnersRepositoryRunsAsTrustedCodeAndAnyOtherOwnersDoesNot() throws Exception {
    assertTrue(pushTrusted(ALICES));
    assertFalse(pushTrusted(CAROLS));
  }

  @Test
  void aPullToATrustedOwnersRepositoryNeverRunsAsTrustedCodeThoughItsAuthorIsTrusted()
      throws Exception {
    PullRunPlanner.PullSubject pull =
        new PullRunPlanner.PullSubject(
            "at://did:plc:alice/dev.knotless.pull/1",
            "refs/heads/f",
            SHA,
            "refs/heads/main",
            BASE,
            SHA);
    for (boolean authorTrusted : List.of(true, false)) {
      assertFalse(
          TRUSTING_ALICE
              .pulls()
              .pull(ALICES, Path.of("/m"), CI, pull, RunClass.OTHER, authorTrusted, Instant.EPOCH)
              .prepare()
              .prepare()
              .trustedCode(),
          "a pull whose author is " + (authorTrusted ? "" : "not ") + "trusted");
    }
  }

  @Test
  void aMergeQueueBatchOfTrustedPullsNeverRunsAsTrustedCode() throws Exception {
    assertFalse(
        TRUSTING_ALICE
            .pulls()
            .batch(
                ALICES,
                Path.of("/m"),
                CI,
                "refs/heads/main",
                BASE,
                SHA,
                RunClass.OTHER,
                true,
                null,
                List.of(
                    new RunOrder.Stacked(
                        "at://did:plc:alice/dev.knotless.pull/1", SHA, "refs/heads/f")),
                Instant.EPOCH)
            .prepare()
            .prepare()
            .trustedCode());
  }
}
