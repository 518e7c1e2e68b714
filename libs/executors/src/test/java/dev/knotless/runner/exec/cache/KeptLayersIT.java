package dev.knotless.runner.exec.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kept layers, marks, a deleted repository's caches and the caches' sizes, on real overlayfs mounts
 * (as root) without a container: what a trusted pull's pass keeps, the push that takes it promotes,
 * over the base it was written over only; the limits; and a {@code --pulls-only} base that never
 * goes back to an older default branch.
 */
class KeptLayersIT {

  private static final String REPO = "did:plc:alice/3kabc";

  @TempDir Path tmp;
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-11-01T00:00:00Z"));
  private CacheStore store;

  private final Clock clock =
      new Clock() {
        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now.get();
        }
      };

  @BeforeEach
  void store() throws IOException {
    store = new CacheStore(tmp.resolve("caches"), CacheStore.DEFAULT_MAX_BYTES, clock);
  }

  @AfterEach
  void unmountWhatIsLeft() throws Exception {
    String prefix = tmp.toAbsolutePath() + "/";
    for (String m :
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
            .map(l -> l.split(" ")[4])
            .filter(m -> m.startsWith(prefix))
            .toList()) {
      new ProcessBuilder("umount", "-l", m).inheritIO().start().waitFor();
    }
  }

  private static CacheRequest request(String repo, CacheUse use) {
    return new CacheRequest(repo, "ci", List.of("/cache"), use);
  }

  private static CacheRequest pull(String check, String subject) {
    return request(REPO, CacheUse.READ).keptAs(new CacheRequest.KeptAs(check, subject));
  }

  /** Runs {@code request} writing {@code files} (a null text deletes), ending passed or not. */
  private List<String> run(CacheRequest request, String run, boolean passed, String... files)
      throws IOException {
    RunCaches caches = store.open(request, run, null);
    Path seen = caches.mounts().get(0).host();
    for (int i = 0; i < files.length; i += 2) {
      Path f = seen.resolve(files[i]);
      if (files[i + 1] == null) {
        Files.delete(f);
      } else {
        Files.createDirectories(f.getParent());
        Files.writeString(f, files[i + 1]);
      }
    }
    return caches.finish(passed);
  }

  /** What a run of {@code repo}'s workflow sees at {@code file}, or null when nothing. */
  private String seen(String repo, String file) throws IOException {
    RunCaches caches =
        store.open(request(repo, CacheUse.READ), "reader-" + System.nanoTime(), null);
    try {
      Path f = caches.mounts().get(0).host().resolve(file);
      return Files.exists(f) ? Files.readString(f) : null;
    } finally {
      caches.finish(false);
    }
  }

  @Test
  void aTrustedPullsPassKeepsItsLayersAndThePushTakingItPromotesThem() throws Exception {
    run(
        request(REPO, CacheUse.PROMOTE_ON_PASS),
        "push-1",
        true,
        "old",
        "from main\n",
        "lib/a",
        "a");
    List<String> kept =
        run(
            pull("at://r/check/p1", "at://alice/pull/1"),
            "pull-1",
            true,
            "new",
            "from the pull\n",
            "old",
            null);
    assertTrue(
        kept.get(0).matches("cache /cache: \\d+ bytes kept for the push that lands this pass"),
        kept.toString());
    assertEquals(null, seen(REPO, "new"), "a kept layer reached the base before its push");
    assertEquals("from main\n", seen(REPO, "old"));
    assertEquals(1, store.kept().count());
    assertFalse(
        run(pull("at://r/check/p2", "at://alice/pull/2"), "pull-2", false, "failed", "x").stream()
            .anyMatch(l -> l.contains("kept")),
        "a failing run kept its layers");
    assertEquals(1, store.kept().count());

    List<String> taken = store.takeKept("at://r/check/p1");
    assertEquals(1, taken.size(), taken.toString());
    assertTrue(taken.get(0).startsWith("cache /cache: promoted"), taken.toString());
    assertEquals("from the pull\n", seen(REPO, "new"));
    assertEquals(null, seen(REPO, "old"), "the pull's deletion (a whiteout) was not applied");
    assertEquals("a", seen(REPO, "lib/a"));
    assertEquals(new CacheStore.Amount(0, 0), store.kept(), "a taken set is forgotten");
    assertEquals(List.of(), store.takeKept("at://r/check/p1"), "taken twice");
    assertEquals(1, store.figures().snapshot().layersKept());
  }

  @Test
  void aPushTakesOnlyLayersWrittenOverABaseStillCurrent() throws Exception {
    run(request(REPO, CacheUse.PROMOTE_ON_PASS), "push-1", true, "v", "1");
    run(pull("at://r/check/p1", "at://alice/pull/1"), "pull-1", true, "pull", "p");
    run(request(REPO, CacheUse.PROMOTE_ON_PASS), "push-2", true, "v", "2");
    List<String> taken = store.takeKept("at://r/check/p1");
    assertEquals(
        List.of(
            "cache /cache: not promoted, the base moved on since the pass was kept: the next run"
                + " warms it"),
        taken);
    assertEquals(null, seen(REPO, "pull"));
    assertEquals("2", seen(REPO, "v"));
    assertEquals(0, store.kept().count());
  }

  @Test
  void aPullsNewRunForgetsWhatItKeptAndABatchLandingForgetsEarlierBatches() throws Exception {
    run(pull("at://r/check/p1-old", "at://alice/pull/1"), "pull-1", true, "f", "old head");
    run(pull("at://r/check/p2", "at://alice/pull/2"), "pull-2", true, "f", "other pull");
    assertEquals(2, store.kept().count());
    run(pull("at://r/check/p1-new", "at://alice/pull/1"), "pull-1b", false, "f", "new head");
    assertEquals(
        List.of(), store.takeKept("at://r/check/p1-old"), "the moved pull's layers stayed");
    run(pull("at://r/check/p3", "at://alice/pull/3"), "pull-3", true, "f", "closing");
    store.forgetKept("at://alice/pull/3");
    assertEquals(List.of(), store.takeKept("at://r/check/p3"), "a closed pull's layers stayed");
    assertEquals(1, store.kept().count(), "another pull's layers went too");

    CacheRequest.KeptAs b1 = new CacheRequest.KeptAs("at://r/check/b1", "queue refs/heads/main");
    CacheRequest.KeptAs b2 = new CacheRequest.KeptAs("at://r/check/b2", "queue refs/heads/main");
    run(request(REPO, CacheUse.READ).keptAs(b1), "batch-1", true, "b", "1");
    now.set(now.get().plusSeconds(1));
    run(request(REPO, CacheUse.READ).keptAs(b2), "batch-2", true, "b", "2");
    assertEquals(3, store.kept().count(), "a batch running ahead displaced the one before it");
    assertTrue(store.takeKept("at://r/check/b2").get(0).contains("promoted"));
    assertEquals(List.of(), store.takeKept("at://r/check/b1"), "an earlier batch's layers stayed");
    assertEquals("2", seen(REPO, "b"));
  }

  @Test
  void keptLayersGoAfterThreeDaysBeyondSixteenSetsAndBeyondTheLimitOldestFirst() throws Exception {
    for (int i = 0; i < 17; i++) {
      now.set(now.get().plusSeconds(60));
      run(pull("at://r/check/" + i, "at://alice/pull/" + i), "pull-" + i, true, "f", "n" + i);
    }
    assertEquals(16, store.kept().count());
    assertEquals(List.of(), store.takeKept("at://r/check/0"), "the oldest of 17 was kept");
    assertTrue(store.takeKept("at://r/check/1").get(0).contains("promoted"));

    now.set(now.get().plus(Duration.ofDays(3)).plusSeconds(1));
    store.expireKept();
    assertEquals(new CacheStore.Amount(0, 0), store.kept(), "sets older than 3 days stayed");

    CacheStore small = new CacheStore(tmp.resolve("small"), 3000, clock);
    store = small;
    for (int i = 0; i < 3; i++) {
      now.set(now.get().plusSeconds(60));
      run(pull("at://r/s/" + i, "at://alice/pull/" + i), "s-" + i, true, "f", "x".repeat(1200));
    }
    assertEquals(new CacheStore.Amount(2, 2400), small.kept());
    assertEquals(List.of(), small.takeKept("at://r/s/0"), "the oldest went first");
  }

  @Test
  void aPullsOnlyBaseIsMarkedAndNeverGoesBackToAnOlderDefaultBranch() throws Exception {
    List<String> made =
        run(request(REPO, CacheUse.READ).promotingMarked(10), "pull-at-10", true, "f", "at 10");
    assertTrue(made.get(0).startsWith("cache /cache: promoted"), made.toString());
    String name = CacheNames.name(REPO, "ci", "/cache");
    assertEquals(10, store.markOf(name));
    List<String> older =
        run(request(REPO, CacheUse.READ).promotingMarked(7), "pull-at-7", true, "f", "at 7");
    assertEquals(
        List.of(
            "cache /cache: not promoted, the base was made at a newer tip of the default branch"
                + " than this run merged with"),
        older);
    assertEquals("at 10", seen(REPO, "f"));

    // Of two pulls' runs over one base, the first to pass makes the next one.
    RunCaches a = store.open(request(REPO, CacheUse.READ).promotingMarked(12), "pull-a", null);
    RunCaches b = store.open(request(REPO, CacheUse.READ).promotingMarked(12), "pull-b", null);
    Files.writeString(a.mounts().get(0).host().resolve("f"), "a");
    Files.writeString(b.mounts().get(0).host().resolve("f"), "b");
    assertTrue(a.finish(true).get(0).contains("promoted"));
    assertTrue(b.finish(true).get(0).contains("another run made the base meanwhile"));
    assertEquals("a", seen(REPO, "f"));

    CacheStore again = new CacheStore(tmp.resolve("caches"), CacheStore.DEFAULT_MAX_BYTES, clock);
    assertEquals(12, again.markOf(name), "marks.json was not read back");
    store = again;
    assertTrue(
        run(request(REPO, CacheUse.PROMOTE_ON_PASS), "push", true, "f", "push")
            .get(0)
            .contains("promoted"));
    assertEquals(-1, store.markOf(name), "a base a push made kept a mark");
  }

  @Test
  void aDeletedRepositorysCachesGoAndTheSizesAreCounted() throws Exception {
    String other = "did:plc:bob/3kxyz";
    run(request(REPO, CacheUse.PROMOTE_ON_PASS), "a-push", true, "f", "12345");
    run(request(other, CacheUse.PROMOTE_ON_PASS), "b-push", true, "f", "1234567");
    run(pull("at://r/check/a", "at://alice/pull/1"), "a-pull", true, "g", "123");
    assertEquals(new CacheStore.Amount(2, 12), store.bases());
    assertEquals(new CacheStore.Amount(1, 3), store.kept());
    // A store started afresh sizes what it finds.
    assertEquals(
        new CacheStore.Amount(2, 12),
        new CacheStore(tmp.resolve("caches"), CacheStore.DEFAULT_MAX_BYTES, clock).bases());

    CacheStore.Amount gone = store.removeRepo(REPO);
    assertEquals(new CacheStore.Amount(2, 8), gone, "its base and its kept set");
    assertEquals(new CacheStore.Amount(1, 7), store.bases());
    assertEquals(0, store.kept().count());
    assertEquals(null, seen(REPO, "f"), "a deleted repository's base stayed");
    assertEquals("1234567", seen(other, "f"), "another repository's base went");
  }
}
