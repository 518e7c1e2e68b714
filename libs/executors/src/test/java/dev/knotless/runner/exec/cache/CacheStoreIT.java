package dev.knotless.runner.exec.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store on real overlayfs mounts (as root) without a container: the size limit, and a runner
 * killed with SIGKILL in the middle of a promotion.
 */
class CacheStoreIT {

  @TempDir Path tmp;

  static CacheRequest request(CacheUse use) {
    return new CacheRequest("alice.example.com/site", "ci", List.of("/cache"), use);
  }

  @AfterEach
  void unmountWhatIsLeft() throws Exception {
    for (String m : mounts()) {
      new ProcessBuilder("umount", "-l", m).inheritIO().start().waitFor();
    }
  }

  private List<String> mounts() throws IOException {
    String prefix = tmp.toAbsolutePath() + "/";
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .map(l -> l.split(" ")[4])
        .filter(m -> m.startsWith(prefix))
        .toList();
  }

  private static void fill(Path dir, int dirs, int files, String text) throws IOException {
    for (int d = 0; d < dirs; d++) {
      Path sub = Files.createDirectories(dir.resolve("d" + d));
      for (int f = 0; f < files; f++) {
        Files.writeString(sub.resolve("f" + f), text);
      }
    }
  }

  private static List<String> generations(Path caches) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> bases = Files.list(caches.resolve("bases"))) {
      for (Path b : bases.toList()) {
        try (Stream<Path> gens = Files.list(b)) {
          gens.filter(Files::isDirectory).forEach(g -> out.add(g.getFileName().toString()));
        }
      }
    }
    return out.stream().sorted().toList();
  }

  @Test
  void aNewBaseOverTheLimitIsNotMadeCurrentAndTheNextRunStartsAfresh() throws Exception {
    CacheStore store = new CacheStore(tmp.resolve("caches"), 64 * 1024);
    RunCaches small = store.open(request(CacheUse.PROMOTE_ON_PASS), "run-small", null);
    Files.writeString(small.mounts().get(0).host().resolve("small"), "fits\n");
    assertTrue(small.finish(true).get(0).contains("promoted"));

    RunCaches big = store.open(request(CacheUse.PROMOTE_ON_PASS), "run-big", null);
    fill(big.mounts().get(0).host(), 10, 10, "x".repeat(1024));
    String line = big.finish(true).get(0);
    assertTrue(line.contains("over --cache-max (65536 bytes): the next run starts afresh"), line);

    RunCaches next = store.open(request(CacheUse.READ), "run-next", null);
    Path seen = next.mounts().get(0).host();
    assertFalse(Files.exists(seen.resolve("d0")), "the base over the limit was made current");
    assertFalse(Files.exists(seen.resolve("small")), "the base was not dropped");
    next.finish(false);
    CacheFigures.Snapshot figures = store.figures().snapshot();
    assertEquals(1, figures.promotions());
    assertEquals(5, figures.bytesPromoted());
    assertEquals(1, figures.notPromoted());
    assertEquals(1, figures.hits(), "the big run's path found a base");
    assertEquals(2, figures.misses(), "the first and the last run's paths found an empty one");
    assertEquals(1, generations(tmp.resolve("caches")).size(), "nothing half-made is left");
    assertEquals(List.of(), mounts());
  }

  @Test
  void aRunnerKilledMidPromotionLeavesNoHalfMadeBaseCurrentAndTheNextStartClearsIt()
      throws Exception {
    Path caches = tmp.resolve("caches");
    CacheStore first = new CacheStore(caches, CacheStore.DEFAULT_MAX_BYTES);
    // A base big enough that cloning it takes a while: the kill comes in the middle.
    RunCaches seed = first.open(request(CacheUse.PROMOTE_ON_PASS), "run-seed", null);
    fill(seed.mounts().get(0).host(), 200, 100, "s");
    assertTrue(seed.finish(true).get(0).contains("promoted"));
    List<String> before = generations(caches);

    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                PromotingChild.class.getName(),
                caches.toString())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.equals("promoting")) {
        // the child's start-up output
      }
      assertEquals("promoting", line, "the child ended before promoting");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!halfMade(caches)) {
        assertTrue(System.nanoTime() < deadline, "no generation was ever half made");
      }
      child.destroyForcibly(); // SIGKILL
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    } finally {
      child.destroyForcibly();
    }
    assertTrue(halfMade(caches), "the kill came after the promotion ended");
    assertEquals(1, mounts().size(), "the killed runner's reader overlay is still mounted");

    CacheStore restarted = new CacheStore(caches, CacheStore.DEFAULT_MAX_BYTES);
    restarted.removeLeftovers();
    assertEquals(List.of(), mounts(), "the leftover overlay was unmounted");
    assertFalse(halfMade(caches), "the half-made generation was removed");
    assertEquals(before, generations(caches), "the generation current before the kill stays");
    try (Stream<Path> runs = Files.list(caches.resolve("runs"))) {
      assertEquals(List.of(), runs.toList(), "the runs' layers were removed");
    }
    RunCaches after = restarted.open(request(CacheUse.READ), "run-after", null);
    Path seen = after.mounts().get(0).host();
    assertTrue(Files.exists(seen.resolve("d199/f99")), "the old base is whole");
    assertFalse(Files.exists(seen.resolve("new")), "a half-made base was read");
    assertFalse(Files.exists(seen.resolve("mine")), "a reader's write reached the base");
    after.finish(false);
  }

  private static boolean halfMade(Path caches) throws IOException {
    try (Stream<Path> all = Files.walk(caches.resolve("bases"), 2)) {
      return all.anyMatch(p -> p.getFileName().toString().endsWith(CacheStore.MAKING));
    }
  }
}
