package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.MergeGateIT.tip;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.mergequeue.QueuePass;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.testing.PdsInstance;
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

/**
 * The owner's repository, its pulls and the runner landing its merge queue, for the queue tests.
 */
final class QueueSetup implements AutoCloseable {
  static final String MAIN = "refs/heads/main";
  static final String MAIN_BATCH = "queue " + MAIN;

  final PdsInstance pds;
  final HarnessAppview appview;
  final OwnerRepo repo;
  final RunnerHarness runner;
  final List<String> pulls = new ArrayList<>();
  final Map<String, String> heads = new LinkedHashMap<>();
  String base;

  /** The runner's state in PostgreSQL, for a runner started with --state-db; else its file. */
  dev.knotless.runner.state.StateStore db;

  QueueSetup(PdsInstance pds, Path tmp, String step) throws Exception {
    this(pds, tmp, step, "{pull: {base: [refs/heads/main]}}");
  }

  /** With the workflow {@code ci} triggered by {@code on}, a flow mapping. */
  QueueSetup(PdsInstance pds, Path tmp, String step, String on) throws Exception {
    this(pds, tmp, step, on, List.of());
  }

  /**
   * As above, the repository naming the owner's account (the runner landing the queue) and {@code
   * otherRunners} in its runners; none named when that is empty.
   */
  QueueSetup(PdsInstance pds, Path tmp, String step, String on, List<String> otherRunners)
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
  QueueSetup(
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
   * queued pulls stacked on main in the runner's mirror, as it would have made them, and the batch
   * at that tip marked passed.
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
