package dev.knotless.runner.exec.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.RunCancellation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk floor on a small file system of its own (a 64 MiB tmpfs mounted as the cache directory,
 * as root), filled past the floor: kept layers and unread bases are shed first, then the run waits.
 */
class DiskFloorIT {

  private static final long MIB = 1 << 20;

  @TempDir Path tmp;
  private Path disk;
  private CacheStore store;

  @BeforeEach
  void smallDisk() throws Exception {
    disk = Files.createDirectories(tmp.resolve("disk"));
    Process p =
        new ProcessBuilder(
                "mount", "-t", "tmpfs", "-o", "size=64m", "knotless-floor", disk.toString())
            .inheritIO()
            .start();
    assertEquals(0, p.waitFor());
    store = new CacheStore(disk.resolve("caches"), CacheStore.DEFAULT_MAX_BYTES);
  }

  @AfterEach
  void unmount() throws Exception {
    for (String m :
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
            .map(l -> l.split(" ")[4])
            .filter(m -> m.startsWith(disk.toString()))
            .sorted(java.util.Comparator.reverseOrder())
            .toList()) {
      new ProcessBuilder("umount", "-l", m).inheritIO().start().waitFor();
    }
  }

  /** A base of {@code mib} MiB, made current by a passing run of workflow {@code workflow}. */
  private void base(String workflow, int mib) throws Exception {
    RunCaches run =
        store.open(
            new CacheRequest("a.test/r", workflow, List.of("/cache"), CacheUse.PROMOTE_ON_PASS),
            "run-" + workflow,
            null);
    Files.write(run.mounts().get(0).host().resolve("blob"), new byte[mib * (int) MIB]);
    assertTrue(run.finish(true).get(0).contains("promoted"));
  }

  @Test
  void aShortDiskShedsTheKeptLayersAndTheBasesNoRunReadsAndTheRunGoesOn() throws Exception {
    base("one", 12);
    base("two", 12);
    RunCaches pull =
        store.open(
            new CacheRequest("a.test/r", "one", List.of("/cache"), CacheUse.READ)
                .keptAs(new CacheRequest.KeptAs("at://runner/check/1", "at://alice/pull/1")),
            "run-pull",
            null);
    Files.write(pull.mounts().get(0).host().resolve("built"), new byte[8 * (int) MIB]);
    assertTrue(pull.finish(true).get(0).contains("kept for the push"));
    assertEquals(1, store.kept().count());
    DiskFloor floor = new DiskFloor(store, 48 * MIB, Duration.ofMillis(100));
    List<String> lines = floor.hold(() -> false);
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(lines.get(0).startsWith("disk short: "), lines.toString());
    assertTrue(
        lines
            .get(0)
            .contains("shed 1 passes' kept cache layers and 2 cache bases no run reads, 32 MiB"),
        lines.toString());
    assertTrue(floor.hold(() -> false).isEmpty(), "the disk has room now");
    assertEquals(new CacheStore.Amount(0, 0), store.kept());
    assertEquals(List.of(), store.takeKept("at://runner/check/1"), "the shed layers are gone");
    assertEquals(2, store.figures().snapshot().basesShed());
    assertEquals(1, store.figures().snapshot().keptShed());
    assertEquals(32, store.figures().snapshot().bytesShed() / MIB);
  }

  @Test
  void whenSheddingIsNotEnoughTheRunWaitsUntilRoomIsFreed() throws Exception {
    base("kept", 4);
    RunCaches reading =
        store.open(
            new CacheRequest("a.test/r", "kept", List.of("/cache"), CacheUse.READ),
            "run-reading",
            null);
    Path other = disk.resolve("the site's index");
    Files.write(other, new byte[30 * (int) MIB]);
    DiskFloor floor = new DiskFloor(store, 40 * MIB, Duration.ofMillis(100));
    CompletableFuture<List<String>> held =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return floor.hold(() -> false);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    Thread.sleep(1500);
    assertFalse(held.isDone(), "the run went on with the disk short");
    Files.delete(other);
    List<String> lines = held.get(30, TimeUnit.SECONDS);
    assertTrue(lines.get(0).contains("and 0 cache bases"), "a read base is kept: " + lines);
    assertTrue(lines.get(1).matches("waited \\d+s for room on the disk"), lines.toString());
    assertTrue(store.figures().snapshot().floorWaitMillis() >= 1000, "the wait is counted");
    reading.finish(false);
  }

  @Test
  void aCancelLetsAHeldRunGo() throws Exception {
    Files.write(disk.resolve("filler"), new byte[40 * (int) MIB]);
    DiskFloor floor = new DiskFloor(store, 40 * MIB, Duration.ofSeconds(30));
    RunCancellation cancel = new RunCancellation();
    CompletableFuture<List<String>> held =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return floor.hold(cancel::isCancelled);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    Thread.sleep(500);
    cancel.cancel("a newer commit");
    List<String> lines = held.get(10, TimeUnit.SECONDS);
    assertEquals("cancelled while waiting for room on the disk", lines.get(lines.size() - 1));
  }
}
