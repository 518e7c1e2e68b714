package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.CacheUse;
import dev.knotless.runner.exec.cache.RunCaches;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Caches under the docker executor, against the harness's daemon and real overlayfs mounts (as
 * root): what a passing push to the default branch wrote is what the next run starts from, and
 * nothing else ever is.
 */
class DockerCachesIT {

  /** A node_modules-like tree: a few hundred small files in nested directories. */
  private static final String INSTALL =
      "for p in $(seq 1 20); do mkdir -p node_modules/pkg$p/lib;"
          + " for f in $(seq 1 10); do echo \"$p.$f\" > node_modules/pkg$p/lib/f$f.js; done;"
          + " done; echo installed > /cache/.stamp";

  private DockerFixture f;
  private Path cacheDir;
  private CacheStore store;
  private DockerExecutor executor;

  @BeforeEach
  void start() throws Exception {
    f = DockerFixture.create();
    cacheDir = f.repo.root.resolve("caches");
    store = new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES);
    executor =
        new DockerExecutor(f.settings(), f.runnerDid, f.work, java.time.Clock.systemUTC(), store);
  }

  @AfterEach
  void nothingIsLeftMounted() throws Exception {
    try {
      assertEquals(List.of(), f.containers(), "a container of a run was left behind");
      assertEquals(List.of(), mountsUnder(cacheDir), "an overlay was left mounted");
      try (Stream<Path> runs = Files.list(cacheDir.resolve("runs"))) {
        assertEquals(List.of(), runs.toList(), "a run's layers were left");
      }
    } finally {
      for (String m : mountsUnder(cacheDir)) {
        new ProcessBuilder("umount", "-l", m).inheritIO().start().waitFor();
      }
      executor.close();
      f.close();
    }
  }

  static List<String> mountsUnder(Path dir) throws IOException {
    String prefix = dir.toAbsolutePath().toString() + "/";
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .map(l -> l.split(" ")[4])
        .filter(m -> m.startsWith(prefix))
        .toList();
  }

  private RunSpec spec(CacheUse use, String script) {
    return spec(use, "ci", script);
  }

  private RunSpec spec(CacheUse use, String workflow, String script) {
    return f.spec(step("build", script))
        .withOption(
            new CacheRequest(
                "alice.example.com/site", workflow, List.of("node_modules", "/cache"), use));
  }

  private RunResult run(RunSpec spec) {
    return executor.run(spec, new RunCancellation());
  }

  /** Has the test's runs go to {@code runtime} from now on, the caches as they are. */
  private void under(String runtime) throws IOException {
    executor.close();
    executor =
        new DockerExecutor(
            f.settings(runtime), f.runnerDid, f.work, java.time.Clock.systemUTC(), store);
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  private static void passes(RunResult r) {
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
  }

  /** The generations on disk of the {@code /cache} base of workflow ci. */
  private List<String> generations() throws IOException {
    try (Stream<Path> bases = Files.list(cacheDir.resolve("bases"));
        Stream<Path> all = bases.flatMap(DockerCachesIT::list)) {
      return all.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static Stream<Path> list(Path p) {
    try {
      return Files.list(p).toList().stream();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @EachRuntime
  void aSecondRunSeesWhatTheFirstPassingDefaultBranchPushCached(String runtime) throws Exception {
    under(runtime);
    RunResult first =
        run(spec(CacheUse.PROMOTE_ON_PASS, "test -z \"$(ls -A node_modules)\"; " + INSTALL));
    passes(first);
    assertTrue(log(first).contains("cache /work/node_modules: promoted"), log(first));
    RunResult second =
        run(
            spec(
                CacheUse.READ,
                "test \"$(cat node_modules/pkg20/lib/f10.js)\" = 20.10;"
                    + " test \"$(find node_modules -type f | wc -l)\" = 200;"
                    + " cat /cache/.stamp"));
    passes(second);
    assertTrue(log(second).contains("installed"), log(second));
  }

  @EachRuntime
  void aFailingRunsWritesNeverReachTheBase(String runtime) throws Exception {
    under(runtime);
    passes(run(spec(CacheUse.PROMOTE_ON_PASS, "echo one > /cache/kept")));
    RunResult failed = run(spec(CacheUse.PROMOTE_ON_PASS, INSTALL + "; rm /cache/kept; exit 1"));
    assertInstanceOf(RunOutcome.Failed.class, failed.outcome(), log(failed));
    passes(run(spec(CacheUse.READ, "test ! -e node_modules/pkg1; test -f /cache/kept")));
  }

  @Test
  void aPullsOrABranchsPassingRunNeverPromotes() {
    RunResult pull = run(spec(CacheUse.READ, INSTALL));
    passes(pull);
    passes(run(spec(CacheUse.READ, "test ! -e node_modules/pkg1; test ! -e /cache/.stamp")));
  }

  @EachRuntime
  void deletionsAndReplacedDirectoriesInARunCarryOverToTheNextGeneration(String runtime)
      throws Exception {
    under(runtime);
    passes(
        run(
            spec(
                CacheUse.PROMOTE_ON_PASS,
                "mkdir -p /cache/d/sub; echo x > /cache/d/sub/x; echo a > /cache/a; echo b >"
                    + " /cache/b")));
    passes(
        run(
            spec(
                CacheUse.PROMOTE_ON_PASS,
                "rm /cache/a; rm -rf /cache/d; mkdir /cache/d; echo y > /cache/d/y")));
    RunResult third =
        run(spec(CacheUse.READ, "test ! -e /cache/a; test -f /cache/b; ls -R /cache/d"));
    passes(third);
    assertTrue(log(third).contains("/cache/d:\ny\n"), log(third));
    assertFalse(log(third).contains("sub"), "the replaced directory was merged: " + log(third));
    assertEquals(2, generations().size(), "one generation per path, the old ones gone");
  }

  @Test
  void anImagesOwnFilesShowThroughWhereTheBaseHasNothing() {
    RunSpec etc =
        f.spec(step("build", "grep -q root /etc/passwd; echo mine > /etc/mine"))
            .withOption(
                new CacheRequest(
                    "alice.example.com/site", "ci", List.of("/etc"), CacheUse.PROMOTE_ON_PASS));
    passes(run(etc));
    RunSpec again =
        f.spec(step("use", "grep -q root /etc/passwd; test \"$(cat /etc/mine)\" = mine"))
            .withOption(
                new CacheRequest("alice.example.com/site", "ci", List.of("/etc"), CacheUse.READ));
    passes(run(again));
  }

  @Test
  void aRunReadingABaseWhileAnotherPromotesSeesTheOldGenerationWholeAndNeitherWaits()
      throws Exception {
    passes(
        run(
            spec(
                CacheUse.PROMOTE_ON_PASS,
                "reader",
                "echo old > /cache/v; echo 1 > /cache/only-old")));
    CompletableFuture<RunResult> reader =
        CompletableFuture.supplyAsync(
            () ->
                run(
                    spec(
                        CacheUse.READ,
                        "reader",
                        "test \"$(cat /cache/v)\" = old; "
                            + DockerFixture.waitFor("go")
                            + "; test \"$(cat /cache/v)\" = old; test -f /cache/only-old")));
    // The reader is up and holds its generation; a push's run on the same base runs to its end and
    // promotes meanwhile.
    awaitMounts(2);
    long started = System.nanoTime();
    RunResult writer =
        run(spec(CacheUse.PROMOTE_ON_PASS, "reader", "echo new > /cache/v; rm /cache/only-old"));
    passes(writer);
    assertTrue(
        System.nanoTime() - started < TimeUnit.SECONDS.toNanos(60),
        "the writer waited on a reader");
    assertTrue(log(writer).contains("cache /cache: promoted"), log(writer));
    assertFalse(reader.isDone(), "the reader ended before it was let go");
    f.release("go");
    passes(reader.get(60, TimeUnit.SECONDS));
    passes(
        run(
            spec(
                CacheUse.READ,
                "reader",
                "test \"$(cat /cache/v)\" = new; test ! -e /cache/only-old")));
  }

  private void awaitMounts(int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (mountsUnder(cacheDir).size() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the reader's overlays were not mounted in 60 s");
      }
      Thread.sleep(50);
    }
    // Its container is up once its step runs; give docker a moment to have made it.
    f.awaitContainer();
  }

  @Test
  void anUntrustedRunOfAWorkflowWithSecretsReadsApartAndKeepsNothing() {
    passes(run(spec(CacheUse.PROMOTE_ON_PASS, INSTALL)));
    RunResult apart =
        run(
            spec(
                CacheUse.APART,
                "test -z \"$(ls -A /cache)\"; test ! -e node_modules/pkg1; " + INSTALL));
    passes(apart);
    assertTrue(log(apart).contains("read apart, empty"), log(apart));
    passes(run(spec(CacheUse.APART, "test -z \"$(ls -A /cache)\"")));
  }

  @Test
  void aStartUnmountsLeftoverOverlaysAndRemovesHalfMadeBases() throws Exception {
    passes(run(spec(CacheUse.PROMOTE_ON_PASS, "echo kept > /cache/kept")));
    List<String> before = generations();
    // A runner killed mid-run and mid-promotion: an overlay still mounted, a generation half made.
    RunCaches left =
        store.open(
            new CacheRequest(
                "alice.example.com/site", "ci", List.of("/cache"), CacheUse.PROMOTE_ON_PASS),
            "run-killed",
            null);
    Files.writeString(left.mounts().get(0).host().resolve("written"), "by the killed run");
    Path base;
    try (Stream<Path> bases = Files.list(cacheDir.resolve("bases"))) {
      base = bases.toList().get(0);
    }
    Path halfMade = Files.createDirectories(base.resolve("999.making/half"));
    assertEquals(1, mountsUnder(cacheDir).size());

    CacheStore restarted = new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES);
    try (DockerExecutor next =
        new DockerExecutor(
            f.settings(), f.runnerDid, f.work, java.time.Clock.systemUTC(), restarted)) {
      next.removeLeftovers();
      assertEquals(List.of(), mountsUnder(cacheDir), "the leftover overlay is unmounted");
      assertFalse(Files.exists(halfMade.getParent()), "the half-made generation is gone");
      assertEquals(before, generations(), "the current generation stays");
      RunResult after =
          next.run(
              spec(CacheUse.READ, "cat /cache/kept; test ! -e /cache/written"),
              new RunCancellation());
      passes(after);
    }
  }
}
