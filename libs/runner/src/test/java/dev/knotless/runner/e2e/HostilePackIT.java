package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.runner.pass.PassTrace;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.pack.PackPlacement;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pushed pack whose history has a hole, against the all-in-one runner's pass. */
@WithPds
class HostilePackIT {

  @Test
  void aPushWhoseParentNoPackHoldsFilesNoCheckThoughItsWorkflowReadsWhole(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, List.of("--sweep", "2"));
      Map<PassTrace.Stage, AtomicInteger> reached = new ConcurrentHashMap<>();
      runner
          .started()
          .get(0)
          .tracing(
              (stage, r, nanos) ->
                  reached.computeIfAbsent(stage, s -> new AtomicInteger()).incrementAndGet());

      // The parent is never pushed; the tip's pack claims no bases. The tip's tree (its workflow
      // included) is in its pack, so the workflow reads whole while the history check runs.
      String parent = repo.commit(Map.of("a.txt", "a\n"));
      String tip = repo.commit(Map.of(".knotless/workflows/ci.yml", AllInOneIT.PASSING));
      Git local = Git.at(repo.workTree().resolve(".git"));
      byte[] pack =
          local.run(
              (tip + "\n^" + parent + "\n").getBytes(StandardCharsets.UTF_8),
              "pack-objects",
              "--revs",
              "--stdout",
              "-q");
      String key = repo.key();
      String did = repo.account.did();
      String refKey = Keys.ref(key, "refs/heads/main");
      var current = repo.client.getRecord(did, Lexicons.REF, refKey);
      RefRecord was = RefRecord.parse(current.uri(), refKey, current.value());
      String now = Instant.now().toString();
      PackRecord p =
          new PackRecord(
              Keys.pack(key, Tid.next()),
              List.of(tip),
              List.of(),
              PackPlacement.objectCount(pack),
              pack.length,
              pack,
              List.of(),
              List.of(),
              now);
      RefRecord moved =
          new RefRecord(
              refKey,
              "refs/heads/main",
              tip,
              was.generation() + 1,
              p.rkey(),
              was.createdAt(),
              now,
              was.pusher());
      int before = count(reached, PassTrace.Stage.PASS);
      repo.client.applyWrites(
          did,
          List.of(
              Write.create(Lexicons.PACK, p.rkey(), p.toJson()),
              Write.update(Lexicons.REF, refKey, moved.toJson())));

      // The second pass to begin after the write begins once the first, which read the holed
      // push (passes of a repository never overlap), has ended; neither filed anything.
      RunnerHarness.await(
          "two passes after the holed push (seen %s)",
          () -> count(reached, PassTrace.Stage.PASS) >= before + 2, reached::toString);
      assertEquals(0, count(reached, PassTrace.Stage.WORKFLOWS), reached.toString());
      assertEquals(0, count(reached, PassTrace.Stage.QUEUED), reached.toString());
      assertEquals(Map.of(), runner.checks(repo), "no check filed for the holed push");
    }
  }

  private static int count(Map<PassTrace.Stage, AtomicInteger> reached, PassTrace.Stage stage) {
    AtomicInteger n = reached.get(stage);
    return n == null ? 0 : n.get();
  }
}
