package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.MergeGateIT.tip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.queue.QueuePass;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge queue on a real runner ({@code --pulls --queue}, the docker executor) logged in as the
 * repository's owner: queued pulls stacked in batches, checked once at the batch's tip, landed in
 * one push each, a failing batch halved until the pull that broke it is ejected, and a direct push
 * under a running batch making it be rebuilt rather than land stale.
 */
@WithPds
class QueueIT {

  private static final String MAIN = "refs/heads/main";
  private static final String MAIN_BATCH = "queue " + MAIN;

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  /** The owner's repository, its pulls and the runner landing its queue. */
  private static final class Setup implements AutoCloseable {
    final PdsInstance pds;
    final HarnessAppview appview;
    final OwnerRepo repo;
    final RunnerHarness runner;
    final List<String> pulls = new ArrayList<>();
    final Map<String, String> heads = new LinkedHashMap<>();
    String base;

    /** The runner's state in PostgreSQL, for a runner started with --state-db; else its file. */
    dev.knotless.runner.state.StateStore db;

    Setup(PdsInstance pds, Path tmp, String step) throws Exception {
      this(pds, tmp, step, "{pull: {base: [refs/heads/main]}}");
    }

    /** With the workflow {@code ci} triggered by {@code on}, a flow mapping. */
    Setup(PdsInstance pds, Path tmp, String step, String on) throws Exception {
      this(pds, tmp, step, on, List.of());
    }

    /**
     * As above, the repository naming the owner's account (the runner landing the queue) and {@code
     * otherRunners} in its runners; none named when that is empty.
     */
    Setup(PdsInstance pds, Path tmp, String step, String on, List<String> otherRunners)
        throws Exception {
      this(
          pds,
          tmp,
          step,
          on,
          owner -> {
            if (otherRunners.isEmpty()) {
              return List.of();
            }
            List<String> named = new ArrayList<>(List.of(owner));
            named.addAll(otherRunners);
            return named;
          });
    }

    /** As above, the repository naming {@code runners.apply(owner's DID)} in its runners. */
    Setup(
        PdsInstance pds,
        Path tmp,
        String step,
        String on,
        java.util.function.Function<String, List<String>> runners)
        throws Exception {
      this.pds = pds;
      appview = HarnessAppview.start(pds.pdsUrl());
      repo = new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      List<String> named = runners.apply(repo.account.did());
      if (!named.isEmpty()) {
        repo.namingRunners(() -> named);
      }
      repo.commit(
          Map.of(
              "README.md",
              "hello\n",
              ".knotless/workflows/ci.yml",
              "on: "
                  + on
                  + "\n"
                  + "image: knotless-test/busybox:1\n"
                  + "steps: [{name: build, run: '"
                  + step
                  + "'}]\n"));
      repo.push("main");
      runner = new RunnerHarness(pds, tmp.resolve("runner"), repo.account);
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
    }

    /** Pulls p1..pN of the owner's, each adding its own file; those in {@code broken} break. */
    void open(int n, Set<Integer> broken) throws Exception {
      for (int i = 1; i <= n; i++) {
        String name = "p" + i;
        repo.git("checkout", "-q", "-b", name, "main");
        Map<String, String> files = new LinkedHashMap<>();
        files.put(name + ".txt", name + "\n");
        if (broken.contains(i)) {
          files.put("broken.txt", "this breaks the build\n");
        }
        String head = repo.commit(files);
        repo.push(name);
        repo.git("checkout", "-q", "main");
        String uri = new PullAuthor(repo).open(repo, "main", repo, name);
        pulls.add(uri);
        heads.put(uri, head);
      }
      // main moves past where the branches start: each pull is stacked as a merge commit.
      base = repo.commit(Map.of("docs.md", "docs\n"));
      repo.push("main");
    }

    /** The store the runner keeps its state in. */
    dev.knotless.runner.state.StateStore store() {
      return db != null ? db : new dev.knotless.runner.state.JsonStateStore(runner.state());
    }

    /** Queues every pull, in order, in one write of the owner's. */
    void queueAll() throws Exception {
      List<Write> writes = new ArrayList<>();
      for (String uri : pulls) {
        ObjectNode v = JsonNodeFactory.instance.objectNode();
        v.put("pull", uri);
        v.put("createdAt", java.time.Instant.now().toString());
        writes.add(Write.create(QueuePass.COLLECTION, repo.key() + "." + Tid.next(), v));
      }
      repo.client.applyWrites(repo.account.did(), writes);
    }

    void start(String... more) throws Exception {
      List<String> flags = new ArrayList<>(List.of("--executor", "docker", "--pulls", "--queue"));
      flags.addAll(List.of(more));
      runner.start(flags, repo.label());
    }

    /** Every batch check, by record key. */
    Map<String, CheckRecord> batchChecks() throws Exception {
      String prefix = CheckKeys.queuePrefix(repo.account.did(), repo.key(), MAIN);
      Map<String, CheckRecord> out = new LinkedHashMap<>();
      runner
          .checks(repo)
          .forEach(
              (k, v) -> {
                if (k.startsWith(prefix)) {
                  out.put(k, v);
                }
              });
      return out;
    }

    Set<String> merged() throws Exception {
      Set<String> out = new LinkedHashSet<>();
      PullReader.scan(
              XrpcClient.create(pds.pdsUrl()),
              repo.account.did(),
              "dev.knotless.state",
              repo.key() + ".")
          .forEach(
              r -> {
                if (r.value().path("state").asText().equals("merged")) {
                  out.add(r.value().path("pull").asText());
                }
              });
      return out;
    }

    /** Every merged state record of the owner's, repeats included. */
    long mergedRecords() throws Exception {
      return PullReader.scan(
              XrpcClient.create(pds.pdsUrl()),
              repo.account.did(),
              "dev.knotless.state",
              repo.key() + ".")
          .stream()
          .filter(r -> r.value().path("state").asText().equals("merged"))
          .count();
    }

    /**
     * What the runner's state holds after a stop between a batch passing and its landing push: the
     * queued pulls stacked on main in the runner's mirror, as it would have made them, and the
     * batch at that tip marked passed.
     */
    String passedAtStop() throws Exception {
      Clock clock = Clock.systemUTC();
      StorageCache cache = StorageCache.at(runner.dir.resolve("cache"), clock);
      XrpcClient reader = XrpcClient.create(pds.pdsUrl());
      dev.knotless.storage.Snapshot snap =
          new SnapshotReader(reader, cache, clock).read(repo.address, SnapshotReader.Packs.NONE);
      dev.knotless.storage.mirror.Mirror m =
          dev.knotless.storage.mirror.Mirror.open(cache.dir(), repo.account.did(), repo.key());
      m.sync(snap, new dev.knotless.storage.fetch.Fetcher(reader, cache, clock));
      List<dev.knotless.storage.merge.MergeCommits.Queued> queued = new ArrayList<>();
      List<dev.knotless.runner.queue.QueueState.Pull> batch = new ArrayList<>();
      for (int i = 0; i < pulls.size(); i++) {
        String uri = pulls.get(i);
        queued.add(
            new dev.knotless.storage.merge.MergeCommits.Queued(
                uri, heads.get(uri), "refs/heads/p" + (i + 1)));
        batch.add(new dev.knotless.runner.queue.QueueState.Pull(uri, heads.get(uri)));
      }
      String tip =
          ((dev.knotless.storage.merge.MergeCommits.Stacked)
                  dev.knotless.storage.merge.MergeCommits.stack(m.git(), base, MAIN, queued))
              .tip();
      dev.knotless.runner.queue.QueueState q =
          new dev.knotless.runner.queue.QueueState(
              MAIN,
              List.of(
                  new dev.knotless.runner.queue.QueueState.Batch(
                      1, batch, 0, base, tip, dev.knotless.runner.queue.QueueState.Status.PASSED)),
              List.of(),
              0,
              1);
      store().update(repo.account.did() + "/" + repo.key(), st -> st.withQueue(q));
      return tip;
    }

    long generation() throws Exception {
      return new SnapshotReader(
              XrpcClient.create(pds.pdsUrl()),
              StorageCache.at(
                  java.nio.file.Files.createTempDirectory("gen-cache"), Clock.systemUTC()),
              Clock.systemUTC())
          .read(repo.address, SnapshotReader.Packs.NONE)
          .liveRefs()
          .get(MAIN)
          .generation();
    }

    /** Waits until the runner's state holds no batch under way on main. */
    void awaitIdle() throws Exception {
      String key = repo.account.did() + "/" + repo.key();
      RunnerHarness.await(
          "the queue of main to be idle",
          () -> {
            try {
              return store()
                  .load(key)
                  .map(s -> s.queues().get(MAIN))
                  .map(m -> m.running().isEmpty() && m.pending().isEmpty())
                  .orElse(false);
            } catch (Exception e) {
              return false;
            }
          });
    }

    /** The subjects of the runs the runner's state says a stop dropped. */
    List<String> droppedSubjects() throws Exception {
      return store()
          .load(repo.account.did() + "/" + repo.key())
          .map(s -> s.dropped().stream().map(d -> d.subject()).distinct().toList())
          .orElse(List.of());
    }

    /** Git in the runner's mirror of the repository, where the batches were made. */
    String mirror(String... args) throws Exception {
      return dev.knotless.storage.mirror.Mirror.open(
              runner.dir.resolve("cache"), repo.account.did(), repo.key())
          .git()
          .text(args);
    }

    @Override
    public void close() throws Exception {
      runner.close();
      appview.close();
    }
  }

  @Test
  void eightPullsWithTheFifthBrokenLandSevenInCheckedPushesAndEjectTheFifthInFiveBatchRuns(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    long started = System.nanoTime();
    try (Setup q = new Setup(pds, tmp, "test ! -e broken.txt")) {
      q.open(8, Set.of(5));
      long before = q.generation();
      q.queueAll();
      q.start();
      String broken = q.pulls.get(4);
      // Five batch runs and two landings one after another: more than one run's usual wait.
      RunnerHarness.await(
          java.time.Duration.ofMinutes(3),
          "7 pulls merged and the fifth ejected (merged so far: %s)",
          () -> {
            try {
              return q.merged().size() == 7
                  && q.runner.pullChecks(q.repo, broken).values().stream()
                      .anyMatch(c -> c.workflow().equals(QueuePass.EJECTED));
            } catch (Exception e) {
              return false;
            }
          },
          () -> {
            try {
              return String.valueOf(q.merged().size());
            } catch (Exception e) {
              return e.toString();
            }
          });
      q.awaitIdle();
      Set<String> merged = q.merged();
      assertFalse(merged.contains(broken), "the broken pull is not merged");
      assertEquals(7, merged.size());

      CheckRecord ejected =
          q.runner.pullChecks(q.repo, broken).values().stream()
              .filter(c -> c.workflow().equals(QueuePass.EJECTED))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.FAILURE, ejected.status());
      assertTrue(
          ejected.note().startsWith("ejected from the merge queue: batch 1 failed, and halving it"),
          ejected.note());
      assertEquals(q.heads.get(broken), ejected.commit());

      // Bisection, not a run a pull: [1-8] fails, [1-4] lands, [5,6] fails, [5] is ejected,
      // [6-8] lands.
      Map<String, CheckRecord> batches = q.batchChecks();
      List<CheckRecord> passed =
          batches.values().stream().filter(c -> c.status() == CheckStatus.SUCCESS).toList();
      assertEquals(5, batches.size(), "five batch runs: " + batches.values());
      assertEquals(2, passed.size(), "two batches passed: " + batches.values());

      // Each push landed a batch's tip that was checked, and nothing else moved main.
      String main = tip(pds, q.repo, "main");
      assertEquals(before + passed.size(), q.generation(), "one push a passing batch");
      assertTrue(
          passed.stream().anyMatch(c -> c.commit().equals(main)),
          "main is at the tip of a batch that passed");
      for (CheckRecord c : passed) {
        String ancestors = q.mirror("rev-list", "--first-parent", main);
        assertTrue(ancestors.contains(c.commit()), "each passing tip is on main: " + c.commit());
      }
      String tree = q.mirror("ls-tree", "--name-only", main);
      for (int i = 1; i <= 8; i++) {
        assertEquals(i != 5, tree.contains("p" + i + ".txt"), "p" + i + " in " + tree);
      }
      assertFalse(tree.contains("broken.txt"), tree);
      System.out.printf(
          "QueueIT: 8 pulls, 1 broken: %d batch runs, %d pushes, %.1f s%n",
          batches.size(), passed.size(), (System.nanoTime() - started) / 1e9);
    }
  }

  @Test
  void aDirectPushUnderARunningBatchRebuildsItAndNothingStaleLands(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    // The batch's step waits for the test to push directly: it runs until a file is on main.
    try (Setup q = new Setup(pds, tmp, "test -e direct.txt || sleep 600")) {
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start();
      RunnerHarness.await(
          "the first batch to be running",
          () -> {
            try {
              return q.batchChecks().values().stream()
                  .anyMatch(c -> c.status() == CheckStatus.RUNNING);
            } catch (Exception e) {
              return false;
            }
          });
      String stale = q.batchChecks().values().iterator().next().commit();
      String direct = q.repo.commit(Map.of("direct.txt", "pushed past the queue\n"));
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
      String main = tip(pds, q.repo, "main");
      assertNotEquals(stale, main, "the batch built on the old tip did not land");
      assertEquals(before + 2, q.generation(), "the direct push and one landing");
      assertTrue(
          q.mirror("rev-list", "--first-parent", main).contains(direct),
          "the batch was rebuilt on the direct push");
      CheckRecord staleCheck =
          q.batchChecks().values().stream()
              .filter(c -> c.commit().equals(stale))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.CANCELLED, staleCheck.status(), String.valueOf(staleCheck));
      CheckRecord landed =
          q.batchChecks().values().stream()
              .filter(c -> c.commit().equals(main))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.SUCCESS, landed.status());
      assertEquals(direct, landed.baseCommit());
    }
  }

  @Test
  void queuedPullsPassTheirPreFlightsOnTheirOwnFirstAndOneWhosePreFlightFailsNeverJoinsABatch(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Setup q = new Setup(pds, tmp, "true")) {
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
  private static boolean holds(Setup q, CheckRecord b, String head) {
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
    try (Setup q =
        new Setup(pds, tmp, "true", "{pull: {base: [refs/heads/main]}}", List.of(other.did()))) {
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
    try (Setup q =
            new Setup(
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
      String prefix = CheckKeys.queuePrefix(q.repo.account.did(), q.repo.key(), MAIN);
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

  @Test
  void theLandingPushOfATrustedBatchTakesItsPassAndRunsNothing(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (Setup q = new Setup(pds, tmp, "echo ran", "{push: {}, pull: {base: [refs/heads/main]}}")) {
      q.open(2, Set.of());
      q.queueAll();
      q.start();
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
      String main = tip(pds, q.repo, "main");
      CheckRecord batch =
          q.batchChecks().values().stream()
              .filter(c -> c.commit().equals(main))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.SUCCESS, batch.status());
      CheckRecord push = q.runner.awaitCheck(q.repo, MAIN, main, "ci", c -> c.status().ended());
      assertEquals(CheckStatus.SUCCESS, push.status(), String.valueOf(push));
      assertTrue(
          push.note() != null && push.note().startsWith("took the pass of "),
          "the landing push took the batch's pass: " + push.note());
      assertTrue(push.note().contains("merge-queue batch 1 of refs/heads/main"), push.note());
      String log = new String(q.runner.log(push), java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(log.contains("its result is taken and nothing is run again"), log);
      assertEquals(batch.steps(), push.steps(), "the batch's steps, not a run of its own");
    }
  }

  @Test
  void aBatchThatPassedBeforeAStopLandsOnceAtTheNextStartAndOneThatLandedIsAdopted(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Setup q = new Setup(pds, tmp, "true")) {
      q.open(3, Set.of());
      q.queueAll();
      long before = q.generation();
      // The runner stopped after the batch passed and before it pushed.
      String tip = q.passedAtStop();
      q.start();
      RunnerHarness.await(
          "the batch to land",
          () -> {
            try {
              return q.merged().size() == 3;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      assertEquals(tip, tip(pds, q.repo, "main"), "main is at the tip that passed");
      assertEquals(before + 1, q.generation(), "one push");
      assertTrue(q.batchChecks().isEmpty(), "a batch that passed is not run again");
      q.runner.started().get(0).stop();

      // The runner was killed after the push and before its state said so: the next start
      // finds main at the batch's tip, and adopts it rather than pushing or marking it again.
      q.passedAtStop();
      q.start();
      q.awaitIdle();
      assertEquals(before + 1, q.generation(), "not pushed again");
      assertEquals(3, q.mergedRecords(), "each pull marked merged once");
      assertTrue(q.batchChecks().isEmpty());
    }
  }

  @Test
  void withDepthTwoTheNextBatchIsBuiltAheadOnTheOneCheckingAndLandsRightAfterIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Setup q = new Setup(pds, tmp, "true")) {
      q.open(4, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start("--batch", "2");
      RunnerHarness.await(
          "four pulls merged",
          () -> {
            try {
              return q.merged().size() == 4;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      List<CheckRecord> batches = new ArrayList<>(q.batchChecks().values());
      assertEquals(2, batches.size(), "two batches of two: " + batches);
      CheckRecord first =
          batches.stream().filter(c -> c.baseCommit().equals(q.base)).findFirst().orElseThrow();
      CheckRecord ahead = batches.stream().filter(c -> c != first).findFirst().orElseThrow();
      assertEquals(first.commit(), ahead.baseCommit(), "built on the tip of the one before");
      assertTrue(
          !ahead.createdAt().isAfter(first.endedAt()),
          "filed while the first was still checking: " + batches);
      assertEquals(ahead.commit(), tip(pds, q.repo, "main"));
      assertEquals(before + 2, q.generation(), "a push a batch");
      assertEquals(
          List.of(),
          q.batchChecks().values().stream()
              .filter(c -> c.status() != CheckStatus.SUCCESS)
              .toList());
    }
  }

  /**
   * The second after which the gated builds pass: a build started before it is still going when the
   * test stops or kills the runner, and one started after it passes. Making the repository through
   * to a running batch takes 3 to 8 s here; the gate leaves room for a machine several times
   * slower.
   */
  private record Gate(long until) {
    static Gate in30Seconds() {
      return new Gate(java.time.Instant.now().plusSeconds(30).getEpochSecond());
    }

    /** The step that waits for the gate. */
    String step() {
      return "while [ $(date +%s) -lt " + until + " ]; do sleep 1; done";
    }

    /** Asserts the gate is still shut, and prints how long before it the cut came. */
    void assertShut(String message) {
      long now = java.time.Instant.now().getEpochSecond();
      assertTrue(now < until, message);
      System.out.printf("[QueueIT] cut off %d s before the gate%n", until - now);
    }

    void awaitOpen() throws InterruptedException {
      while (java.time.Instant.now().getEpochSecond() <= until) {
        Thread.sleep(200);
      }
    }
  }

  @Test
  void withItsStateInPostgresARunnerKeepsABatchCutOffByAStopAndLandsItOnceAfterAStart(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (dev.knotless.testing.infra.EmbeddedPg pg = dev.knotless.testing.infra.EmbeddedPg.start()) {
      // Set once PostgreSQL is up, so its start does not eat into the gate.
      gatedByPostgres(pds, tmp, pg, Gate.in30Seconds());
    }
  }

  private void gatedByPostgres(
      PdsInstance pds, Path tmp, dev.knotless.testing.infra.EmbeddedPg pg, Gate gate)
      throws Exception {
    try (Setup q = new Setup(pds, tmp, gate.step())) {
      q.runner.extraEnv.put(dev.knotless.runner.cli.RunnerOptions.STATE_DB_USER, "postgres");
      q.runner.extraEnv.put(dev.knotless.runner.cli.RunnerOptions.STATE_DB_PASSWORD, "postgres");
      q.db = dev.knotless.runner.state.pg.PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
      String key = q.repo.account.did() + "/" + q.repo.key();
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start("--state-db", pg.jdbcUrl(), "--stop-wait", "0");
      RunnerHarness.await(
          "the batch to be running",
          () -> {
            try {
              return q.batchChecks().values().stream()
                  .anyMatch(c -> c.status() == CheckStatus.RUNNING);
            } catch (Exception e) {
              return false;
            }
          });
      q.runner.started().get(0).stop();
      gate.assertShut("stopped before it passed");
      assertFalse(java.nio.file.Files.exists(q.runner.state()), "no state file was written");
      String cut = q.batchChecks().values().iterator().next().commit();
      dev.knotless.runner.queue.QueueState kept = q.db.load(key).orElseThrow().queues().get(MAIN);
      assertEquals(1, kept.running().size(), String.valueOf(kept));
      assertEquals(cut, kept.running().get(0).tip(), "the database holds the batch at its tip");
      assertEquals(
          dev.knotless.runner.queue.QueueState.Status.CHECKING, kept.running().get(0).status());
      assertEquals(q.pulls, kept.running().get(0).pulls().stream().map(p -> p.uri()).toList());
      gate.awaitOpen();
      q.start("--state-db", pg.jdbcUrl());
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
      assertEquals(cut, tip(pds, q.repo, "main"), "the kept batch landed");
      assertEquals(before + 1, q.generation(), "landed once");
      assertEquals(2, q.mergedRecords(), "each pull marked merged once");
      assertEquals(1, q.db.load(key).orElseThrow().queues().get(MAIN).lastId(), "no new batch");
    }
  }

  @Test
  void aRunnerProcessKilledMidBatchRunsTheBatchAgainAtTheNextStartAndLandsItOnce(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Gate gate = Gate.in30Seconds();
    try (Setup q = new Setup(pds, tmp, gate.step())) {
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      Process p =
          StopAndStartIT.spawn(
              q.runner, q.repo, List.of("--executor", "docker", "--pulls", "--queue"));
      CheckRecord cut;
      try {
        RunnerHarness.await(
            "the batch to be running in the runner's process",
            () -> {
              try {
                return q.batchChecks().values().stream()
                    .anyMatch(c -> c.status() == CheckStatus.RUNNING);
              } catch (Exception e) {
                return false;
              }
            });
        p.destroyForcibly(); // SIGKILL: no stop procedure runs, the container is left
        assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
      } finally {
        p.destroyForcibly();
      }
      cut = q.batchChecks().values().iterator().next();
      assertEquals(CheckStatus.RUNNING, cut.status(), "the kill left the batch's check running");
      gate.assertShut("killed before it passed");
      assertEquals(before, q.generation(), "nothing landed");
      gate.awaitOpen();
      q.start();
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
      Map<String, CheckRecord> batches = q.batchChecks();
      assertEquals(1, batches.size(), "the same batch, at the same tip and base: " + batches);
      CheckRecord again = batches.values().iterator().next();
      assertEquals(CheckStatus.SUCCESS, again.status(), String.valueOf(again));
      assertEquals(cut.commit(), again.commit());
      assertEquals(cut.commit(), tip(pds, q.repo, "main"));
      assertEquals(before + 1, q.generation(), "landed once");
      assertEquals(2, q.mergedRecords(), "each pull marked merged once");
    }
  }

  @Test
  void aBatchCutOffByAStopRunsAgainAtTheNextStartAndLandsOnce(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    // The build passes only once the clock is past a moment the test sets: the first run is
    // still going when the runner stops, and the run after the start passes.
    Gate gate = Gate.in30Seconds();
    String wait = gate.step();
    try (Setup q = new Setup(pds, tmp, wait)) {
      // A second workflow, and one job: one of the batch's runs waits, and the stop drops it.
      q.repo.commit(
          Map.of(
              ".knotless/workflows/lint.yml",
              "on: {pull: {base: [refs/heads/main]}}\n"
                  + "image: knotless-test/busybox:1\n"
                  + "steps: [{name: lint, run: '"
                  + wait
                  + "'}]\n"));
      q.repo.push("main");
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start("--stop-wait", "0", "--jobs", "1");
      RunnerHarness.await(
          "the batch to be running",
          () -> {
            try {
              return q.batchChecks().values().stream()
                  .anyMatch(c -> c.status() == CheckStatus.RUNNING);
            } catch (Exception e) {
              return false;
            }
          });
      q.runner.started().get(0).stop();
      gate.assertShut("the stop came before the build passed");
      CheckRecord cut = q.batchChecks().values().iterator().next();
      // Cancelled, or error when the stop came as its container was starting: cut off, either way.
      assertTrue(cut.status().ended() && cut.status() != CheckStatus.SUCCESS, String.valueOf(cut));
      assertEquals(before, q.generation(), "nothing landed");
      assertEquals(
          List.of(MAIN_BATCH), q.droppedSubjects(), "the stop dropped the batch's waiting run");
      gate.awaitOpen();
      q.start();
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
      Map<String, CheckRecord> batches = q.batchChecks();
      assertEquals(2, batches.size(), "the same batch, at the same tip and base: " + batches);
      for (CheckRecord again : batches.values()) {
        assertEquals(CheckStatus.SUCCESS, again.status());
        assertEquals(cut.commit(), again.commit());
      }
      assertEquals(cut.commit(), tip(pds, q.repo, "main"));
      assertEquals(before + 1, q.generation(), "landed once");
      assertEquals(2, q.mergedRecords(), "each pull marked merged once");
      assertEquals(List.of(), q.droppedSubjects(), "the batch's dropped run is not kept");
    }
  }
}
