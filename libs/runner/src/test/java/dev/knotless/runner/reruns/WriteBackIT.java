package dev.knotless.runner.reruns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run asked for by name that writes back what it changed, against the real PDS. */
@WithPds
class WriteBackIT {
  static final String FEATURE = "refs/heads/feature";

  static final String FMT =
      """
      on: {asked: {refs: ["*"], commit: ["gen/*.txt"]}}
      steps:
        - name: generate
          run: |
            mkdir -p gen other
            echo "made at $KNOTLESS_RUN_SHA" > gen/out.txt
            echo "not written back" > other/skip.txt
            sleep "${PAUSE:-0}"
      """;

  private static String tip(Stage s, String ref) throws Exception {
    Snapshot snap =
        new SnapshotReader(
                s.ownerClient,
                StorageCache.at(s.dir.resolve("read-cache"), Clock.systemUTC()),
                Clock.systemUTC())
            .read(s.address, SnapshotReader.Packs.NONE);
    return snap.liveRefs().get(ref).target();
  }

  @Test
  void aPassingRunWritesItsChangesBackOnTopOfTheCommitItRanAt(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (Stage s = new Stage(pds, tmp, true)) {
      s.commit(Map.of("README.md", "hi\n", ".knotless/workflows/fmt.yml", FMT));
      s.push("main");
      s.git("checkout", "-q", "-b", "feature");
      String sha = s.commit(Map.of("feature.txt", "f\n"));
      s.push("feature");
      s.start();

      s.knotless("rerun", s.label(), "--ref", "feature", "--workflow", "fmt");
      CheckRecord c = s.awaitEnded(FEATURE, sha, "fmt");
      assertEquals(CheckStatus.SUCCESS, c.status(), c.note() + "\n" + s.log(c));
      assertTrue(s.log(c).contains("==> wrote back 1 files to refs/heads/feature as "), s.log(c));

      String written = tip(s, FEATURE);
      assertTrue(!written.equals(sha), "the branch moved to the written-back commit");
      // The commit is in the runner's mirror, which the write-back pushed from.
      dev.knotless.storage.git.Git mirror =
          dev.knotless.storage.mirror.Mirror.open(
                  StorageCache.fromEnvironment(s.runnerEnv(), Clock.systemUTC()).dir(),
                  s.owner.did(),
                  s.key())
              .git();
      assertEquals(sha, mirror.revParse(written + "^").strip());
      assertEquals("made at " + sha, mirror.text("show", written + ":gen/out.txt").strip());
      assertEquals("gen/out.txt", mirror.text("diff", "--name-only", sha, written).strip());
    }
  }

  @Test
  void theDefaultBranchAndABranchThatMovedAreNotWrittenBack(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (Stage s = new Stage(pds, tmp, true)) {
      String mainSha = s.commit(Map.of("README.md", "hi\n", ".knotless/workflows/fmt.yml", FMT));
      s.push("main");
      s.git("checkout", "-q", "-b", "feature");
      String sha = s.commit(Map.of("feature.txt", "f\n"));
      s.push("feature");
      s.start();

      s.knotless("rerun", s.label(), "--ref", "main", "--workflow", "fmt");
      CheckRecord onMain = s.awaitEnded(Stage.MAIN, mainSha, "fmt");
      assertEquals(CheckStatus.FAILURE, onMain.status());
      assertEquals("not written back: refs/heads/main is the default branch", onMain.note());
      assertEquals(mainSha, tip(s, Stage.MAIN));

      s.knotless("rerun", s.label(), "--ref", "feature", "--workflow", "fmt", "--var", "PAUSE=4");
      s.awaitCheck(FEATURE, sha, "fmt", c -> c.status() == CheckStatus.RUNNING);
      String moved = s.commit(Map.of("feature.txt", "moved\n"));
      s.push("feature");
      CheckRecord c = s.awaitEnded(FEATURE, sha, "fmt");
      assertEquals(CheckStatus.FAILURE, c.status(), String.valueOf(c));
      assertEquals("not written back: refs/heads/feature moved while the run went", c.note());
      assertTrue(s.log(c).contains("==> not written back: refs/heads/feature moved"), s.log(c));
      assertEquals(moved, tip(s, FEATURE));
    }
  }

  @Test
  void aStepCannotMakeTheRunnersGitRunACommandThroughTheCheckoutsConfig(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    dev.knotless.testing.LocalDocker.ensure();
    Path marker = tmp.resolve("the-runner-ran-it");
    String plant =
        """
        on: {asked: {refs: ["*"], commit: ["gen/*.txt"]}}
        steps:
          - name: plant
            run: |
              mkdir -p gen
              echo made > gen/out.txt
              printf '[core]\\n\\tfsmonitor = touch %1$s-fsmonitor\\n' >> .git/config
              printf '[filter "evil"]\\n\\tclean = touch %1$s-filter; cat\\n' >> .git/config
              printf '[core]\\n\\tpager = touch %1$s-pager\\n' >> .git/config
              echo '* filter=evil' > .gitattributes
        """
            .formatted(marker);
    try (Stage s = new Stage(pds, tmp, true)) {
      s.commit(Map.of("README.md", "hi\n", ".knotless/workflows/plant.yml", plant));
      s.push("main");
      s.git("checkout", "-q", "-b", "feature");
      String sha = s.commit(Map.of("feature.txt", "f\n"));
      s.push("feature");
      s.start("--executor", "docker", "--image", dev.knotless.testing.LocalDocker.BUSYBOX);

      s.knotless("rerun", s.label(), "--ref", "feature", "--workflow", "plant");
      CheckRecord c = s.awaitEnded(FEATURE, sha, "plant");
      assertEquals(CheckStatus.SUCCESS, c.status(), c.note() + "\n" + s.log(c));
      assertTrue(s.log(c).contains("==> wrote back 1 files to refs/heads/feature as "), s.log(c));
      for (String what : java.util.List.of("fsmonitor", "filter", "pager")) {
        assertTrue(
            !java.nio.file.Files.exists(tmp.resolve(marker.getFileName() + "-" + what)),
            "the runner's git ran the step's " + what);
      }
    }
  }
}
