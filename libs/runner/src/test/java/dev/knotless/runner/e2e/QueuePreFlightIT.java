package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge queue's pre-flights and named runners on a real runner ({@code --pulls --queue}, the
 * docker executor): each queued pull passes its own pre-flight before it joins a batch, a
 * pre-flight another named runner took is left to it, and a named runner that is not the owner's
 * lands nothing.
 */
@WithPds
class QueuePreFlightIT {

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void queuedPullsPassTheirPreFlightsOnTheirOwnFirstAndOneWhosePreFlightFailsNeverJoinsABatch(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (QueueSetup q = new QueueSetup(pds, tmp, "true")) {
      q.repo.commit(
          Map.of(
              ".knotless/workflows/pre.yml",
              "queue: first\n"
                  + "on: {pull: {base: [refs/heads/main]}}\n"
                  + "image: knotless-test/busybox:1\n"
                  + "steps: [{name: quick, run: 'test ! -e broken.txt'}]\n"));
      q.repo.push("main");
      q.open(3, Set.of(2));
      String failing = q.pulls.get(1);
      q.queueAll();
      q.start();
      RunnerHarness.await(
          "the first and third pulls merged, the second's pre-flight failed",
          () -> {
            try {
              return q.merged().size() == 2
                  && q.runner.pullChecks(q.repo, failing).values().stream()
                      .anyMatch(c -> c.workflow().equals("pre") && c.status().ended());
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      assertEquals(Set.of(q.pulls.get(0), q.pulls.get(2)), q.merged());
      Map<String, CheckRecord> batches = q.batchChecks();
      assertFalse(batches.isEmpty());
      String failingHead = q.heads.get(failing);
      for (CheckRecord b : batches.values()) {
        assertFalse(
            q.mirror("rev-list", b.commit()).contains(failingHead),
            "never in a batch: " + b.commit());
      }
      for (String uri : List.of(q.pulls.get(0), q.pulls.get(2))) {
        List<CheckRecord> own = List.copyOf(q.runner.pullChecks(q.repo, uri).values());
        assertEquals(
            List.of("pre"),
            own.stream().map(CheckRecord::workflow).toList(),
            "only its pre-flight ran on the pull alone");
        CheckRecord pre = own.get(0);
        assertEquals(CheckStatus.SUCCESS, pre.status());
        assertEquals(q.heads.get(uri), pre.commit(), "at the pull's head");
        CheckRecord batch =
            batches.values().stream()
                .filter(b -> b.workflow().equals("ci") && holds(q, b, q.heads.get(uri)))
                .min(java.util.Comparator.comparing(CheckRecord::createdAt))
                .orElseThrow();
        assertFalse(
            batch.createdAt().isBefore(pre.endedAt()),
            "its batch was made after its pre-flight passed");
      }
      List<CheckRecord> own = List.copyOf(q.runner.pullChecks(q.repo, failing).values());
      assertEquals(List.of("pre"), own.stream().map(CheckRecord::workflow).toList());
      assertEquals(CheckStatus.FAILURE, own.get(0).status());
    }
  }

  /** Whether the batch checked at {@code b} holds the commit {@code head}. */
  private static boolean holds(QueueSetup q, CheckRecord b, String head) {
    try {
      return q.mirror("rev-list", b.commit()).contains(head);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aPreFlightAnotherNamedRunnerStartedMeanwhileIsNotRunHereAndItsCheckIsDeleted(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    dev.knotless.testing.Account other = pds.createAccount("other");
    XrpcClient asOther = XrpcClient.create(pds.pdsUrl());
    asOther.login(other.handle(), other.password());
    try (QueueSetup q =
        new QueueSetup(
            pds, tmp, "true", "{pull: {base: [refs/heads/main]}}", List.of(other.did()))) {
      // Long enough for the test to write the other runner's check while this one holds the job.
      q.repo.commit(
          Map.of(
              ".knotless/workflows/pre.yml",
              "queue: first\n"
                  + "on: {pull: {base: [refs/heads/main]}}\n"
                  + "image: knotless-test/busybox:1\n"
                  + "steps: [{name: slow, run: 'sleep 6'}]\n"));
      q.repo.push("main");
      q.open(2, Set.of());
      q.queueAll();
      // One job: one pull's pre-flight runs while the other's waits for the job.
      q.start("--jobs", "1");
      Map<String, String> waiting = new LinkedHashMap<>();
      RunnerHarness.await(
          "one pre-flight running and the other waiting",
          () -> {
            try {
              boolean running = false;
              waiting.clear();
              for (String uri : q.pulls) {
                for (var e : q.runner.pullChecks(q.repo, uri).entrySet()) {
                  running |= e.getValue().status() == CheckStatus.RUNNING;
                  if (e.getValue().status() == CheckStatus.QUEUED) {
                    waiting.put(uri, e.getKey());
                  }
                }
              }
              return running && waiting.size() == 1;
            } catch (Exception e) {
              return false;
            }
          });
      String withdrawn = waiting.keySet().iterator().next();
      String rkey = waiting.get(withdrawn);
      CheckRecord queued = q.runner.pullChecks(q.repo, withdrawn).get(rkey);
      // The other runner the repository names starts the same pre-flight meanwhile.
      ObjectNode v = queued.toJson();
      v.put("status", "running");
      v.put("createdAt", java.time.Instant.now().toString());
      v.put("startedAt", java.time.Instant.now().toString());
      asOther.putRecord(
          other.did(), CheckRecord.COLLECTION, rkey, v, dev.knotless.atproto.Swap.none());
      RunnerHarness.await(
          "the waiting pre-flight's check deleted here",
          () -> {
            try {
              return !q.runner.pullChecks(q.repo, withdrawn).containsKey(rkey);
            } catch (Exception e) {
              return false;
            }
          });
      // The other runner's pre-flight passes: the pull joins a batch on its pass.
      v.put("status", "success");
      v.put("endedAt", java.time.Instant.now().toString());
      asOther.putRecord(
          other.did(), CheckRecord.COLLECTION, rkey, v, dev.knotless.atproto.Swap.none());
      // A pull's run ending rings the door; the other runner's write does not, so push a pass.
      q.repo.commit(Map.of("nudge.txt", "a pass\n"));
      q.repo.push("main");
      RunnerHarness.await(
          "both pulls merged",
          () -> {
            try {
              return q.merged().size() == 2;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      assertTrue(
          q.runner.pullChecks(q.repo, withdrawn).values().stream()
              .noneMatch(c -> c.workflow().equals("pre")),
          "the withdrawn pre-flight ran nowhere here");
      String ran = q.pulls.stream().filter(u -> !u.equals(withdrawn)).findFirst().orElseThrow();
      assertEquals(
          List.of(CheckStatus.SUCCESS),
          q.runner.pullChecks(q.repo, ran).values().stream()
              .filter(c -> c.workflow().equals("pre"))
              .map(CheckRecord::status)
              .toList(),
          "the other pull's pre-flight ran here");
    }
  }

  @Test
  void aNamedRunnerThatIsNotTheOwnersLandsNothingWithoutAGatewayAndRunsQueuedPullsAsAnyPull(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    dev.knotless.testing.Account account = pds.createAccount("named");
    try (QueueSetup q =
            new QueueSetup(
                pds,
                tmp,
                "true",
                "{pull: {base: [refs/heads/main]}}",
                owner -> List.of(account.did()));
        RunnerHarness named = new RunnerHarness(pds, tmp.resolve("named"), account)) {
      named.extraEnv.put("KNOTLESS_APPVIEW", q.appview.url().toString());
      named.start(List.of("--executor", "docker", "--pulls", "--queue"), q.repo.label());
      named.awaitWatched(q.repo);
      q.open(1, Set.of());
      long before = q.generation();
      q.queueAll();
      String uri = q.pulls.get(0);
      RunnerHarness.await(
          "the queued pull to run as any pull",
          () -> {
            try {
              return named.pullChecks(q.repo, uri).values().stream()
                  .anyMatch(c -> c.workflow().equals("ci") && c.status() == CheckStatus.SUCCESS);
            } catch (Exception e) {
              return false;
            }
          });
      CheckRecord ci =
          named.pullChecks(q.repo, uri).values().stream()
              .filter(c -> c.workflow().equals("ci"))
              .findFirst()
              .orElseThrow();
      assertEquals(q.heads.get(uri), ci.commit(), "run at the pull's head, not in a batch");
      String prefix = CheckKeys.queuePrefix(q.repo.account.did(), q.repo.key(), QueueSetup.MAIN);
      assertTrue(
          named.checks(q.repo).keySet().stream().noneMatch(k -> k.startsWith(prefix)),
          "no batch was made");
      assertEquals(before, q.generation(), "nothing landed");
      assertEquals(Set.of(), q.merged());
      assertTrue(
          named.state().toFile().exists()
              && new dev.knotless.runner.state.JsonStateStore(named.state())
                  .load(q.repo.account.did() + "/" + q.repo.key())
                  .map(st -> st.queues().isEmpty())
                  .orElse(false),
          "no queue is kept");
    }
  }
}
