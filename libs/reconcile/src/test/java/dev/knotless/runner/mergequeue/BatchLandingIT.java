package dev.knotless.runner.mergequeue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.queue.QueuePlan;
import dev.knotless.runner.queue.QueuePlan.Build;
import dev.knotless.runner.queue.QueuePlan.Cancel;
import dev.knotless.runner.queue.QueuePlan.Land;
import dev.knotless.runner.queue.QueuePlan.Outcome;
import dev.knotless.runner.queue.QueueState;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.storage.Settings;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.push.Pusher;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A merge-queue batch landing on the real reference PDS, as {@link QueuePlan} decides and {@link
 * BatchLanding} pushes: pulls stacked in a mirror synced from the owner's PDS, one push of the tip,
 * refused if the branch moved, and a restart between passing and landing that lands exactly once.
 */
@WithPds
class BatchLandingIT {

  private static final String MAIN = "refs/heads/main";
  private static final Clock CLOCK = Clock.systemUTC();

  /** The owner, three queued pulls of theirs, and the runner-side pieces, all on one PDS. */
  private static final class Queue {
    final OwnerRepo repo;
    final List<Pull> pulls = new ArrayList<>();
    final List<MergeCommits.Queued> queued = new ArrayList<>();
    final StorageCache cache;
    final XrpcClient reader;
    final Mirror mirror;
    final BatchLanding landing;

    Queue(PdsInstance pds, Path tmp) throws Exception {
      repo = new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of("README.md", "hello\n"));
      repo.push("main");
      for (String name : List.of("a", "b", "c")) {
        repo.git("checkout", "-q", "-b", name, "main");
        String head = repo.commit(Map.of(name + ".txt", name + "\n"));
        repo.push(name);
        repo.git("checkout", "-q", "main");
        String uri = new PullAuthor(repo).open(repo, "main", repo, name);
        pulls.add(new Pull(uri, head));
        queued.add(new MergeCommits.Queued(uri, head, "refs/heads/" + name));
      }
      // main moves past where the branches start, so each pull is stacked as a merge commit.
      repo.commit(Map.of("docs.md", "docs\n"));
      repo.push("main");
      cache = StorageCache.at(tmp.resolve("runner-cache"), CLOCK);
      reader = XrpcClient.create(pds.pdsUrl());
      mirror = Mirror.open(cache.dir(), repo.account.did(), repo.key());
      landing =
          new BatchLanding(
              new Pusher(repo.client, cache, CLOCK, Settings.defaults().claimGrace()),
              repo.client,
              CLOCK);
    }

    Snapshot read() throws Exception {
      Snapshot s =
          new SnapshotReader(reader, cache, CLOCK).read(repo.address, SnapshotReader.Packs.NONE);
      mirror.sync(s, new Fetcher(reader, cache, CLOCK));
      return s;
    }

    String main(Snapshot s) {
      return s.liveRefs().get(MAIN).target();
    }

    long generation(Snapshot s) {
      return s.liveRefs().get(MAIN).generation();
    }

    /** Builds the batch the plan asks for, and returns the state with its tip. */
    QueueState build(QueueState s, Build b) throws Exception {
      List<MergeCommits.Queued> these =
          queued.stream().filter(q -> b.batch().holds(q.uri())).toList();
      MergeCommits.Stacked stacked =
          assertInstanceOf(
              MergeCommits.Stacked.class,
              MergeCommits.stack(mirror.git(), b.batch().base(), MAIN, these));
      return QueuePlan.built(s, b.batch().id(), stacked.tip());
    }

    int mergedStates() throws Exception {
      return (int)
          PullReader.scan(reader, repo.account.did(), "dev.knotless.state", repo.key() + ".")
              .stream()
              .filter(r -> r.value().path("state").asText().equals("merged"))
              .count();
    }
  }

  /** Plans, builds and passes one batch of every queued pull on the branch as read. */
  private static QueueState passedBatch(Queue q, Snapshot snap) throws Exception {
    Outcome fill = QueuePlan.fill(QueueState.empty(MAIN), q.pulls, q.main(snap), 8, 2);
    QueueState s = q.build(fill.state(), assertInstanceOf(Build.class, fill.steps().get(0)));
    Outcome passed = QueuePlan.passed(s, 1);
    assertInstanceOf(Land.class, passed.steps().get(0));
    return passed.state();
  }

  @Test
  void aPassingBatchLandsInOnePushOfTheTipItWasCheckedAtAndEveryPullIsMerged(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Queue q = new Queue(pds, tmp);
    Snapshot before = q.read();
    QueueState s = passedBatch(q, before);
    String tip = s.running().get(0).tip();

    BatchLanding.Landed landed = q.landing.land(before, q.mirror.git(), MAIN, s.running().get(0));
    assertEquals(new BatchLanding.Pushed(tip), landed);
    Snapshot after = q.read();
    assertEquals(tip, q.main(after), "main is at the tip the batch was checked at");
    assertEquals(q.generation(before) + 1, q.generation(after), "one push");
    assertEquals(3, q.mergedStates());
    String log = q.mirror.git().text("log", "--format=%B", q.main(before) + ".." + tip);
    for (Pull p : q.pulls) {
      assertTrue(log.contains(p.uri()), "each pull's merge ends with its AT-URI: " + log);
    }
    assertTrue(QueuePlan.landed(s, 1).state().running().isEmpty());
  }

  @Test
  void aDirectPushToTheBranchMakesTheLandingRefuseAndTheBatchIsRebuiltOnTheNewTip(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Queue q = new Queue(pds, tmp);
    Snapshot before = q.read();
    QueueState s = passedBatch(q, before);
    String staleTip = s.running().get(0).tip();

    String direct = q.repo.commit(Map.of("hotfix.txt", "pushed directly\n"));
    q.repo.push("main");
    BatchLanding.Landed refused = q.landing.land(before, q.mirror.git(), MAIN, s.running().get(0));
    assertInstanceOf(BatchLanding.Refused.class, refused);
    Snapshot moved = q.read();
    assertEquals(direct, q.main(moved), "nothing stale landed");
    assertEquals(0, q.mergedStates());

    Outcome rebuilt = QueuePlan.landRefused(s, q.main(moved));
    assertInstanceOf(Cancel.class, rebuilt.steps().get(0));
    Outcome fill = QueuePlan.fill(rebuilt.state(), q.pulls, q.main(moved), 8, 2);
    Build b = assertInstanceOf(Build.class, fill.steps().get(0));
    assertEquals(direct, b.batch().base());
    QueueState again = q.build(fill.state(), b);
    long id = b.batch().id();
    again = QueuePlan.passed(again, id).state();
    String tip = again.running().get(0).tip();
    assertTrue(!tip.equals(staleTip));
    assertEquals(
        new BatchLanding.Pushed(tip),
        q.landing.land(moved, q.mirror.git(), MAIN, again.running().get(0)));
    assertEquals(tip, q.main(q.read()));
    assertEquals(3, q.mergedStates());
  }

  @Test
  void aRunnerKilledBetweenABatchPassingAndLandingLandsItExactlyOnceAfterAStart(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Queue q = new Queue(pds, tmp);
    Snapshot before = q.read();
    // The state as saved when the batch passed, before anything was pushed.
    QueueState saved = passedBatch(q, before);

    // Killed before the push: on start the branch is still at the base, so it lands now.
    Outcome resumed = QueuePlan.resume(saved, q.main(q.read()));
    Land land = assertInstanceOf(Land.class, resumed.steps().get(0));
    Snapshot now = q.read();
    assertInstanceOf(
        BatchLanding.Pushed.class, q.landing.land(now, q.mirror.git(), MAIN, land.batch()));
    // Killed again after the push, before the state said it landed: on the next start the branch
    // is at the tip, so the batch is adopted and not pushed again.
    Snapshot landed = q.read();
    Outcome adopted = QueuePlan.resume(saved, q.main(landed));
    assertTrue(
        adopted.steps().stream().noneMatch(st -> st instanceof Land), adopted.steps().toString());
    assertTrue(adopted.state().running().isEmpty());
    q.landing.adopt(q.repo.account.did(), q.repo.key(), saved.running().get(0));

    Snapshot after = q.read();
    assertEquals(saved.running().get(0).tip(), q.main(after));
    assertEquals(q.generation(before) + 1, q.generation(after), "landed exactly once");
    assertEquals(3, q.mergedStates(), "each pull marked merged once");
  }
}
