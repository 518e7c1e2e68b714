package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code --disk-floor} free on the disk the caches are on (runner.md, "Room on the disk").
 * Before a run starts, {@link #hold} looks at the free space; below the floor it sheds every kept
 * set of layers and every base no run reads, and if that is not enough it waits, looking again
 * every interval, until runs going end and free their layers, or the run is cancelled. One run at a
 * time holds here, so no other run starts meanwhile. A disk whose free space cannot be read holds
 * nothing back. Thread-safe.
 */
public final class DiskFloor {

  private static final Logger LOG = LoggerFactory.getLogger(DiskFloor.class);

  /** The floor when {@code --disk-floor} is not given: 20 GiB. */
  public static final long DEFAULT_FLOOR_BYTES = 20L << 30;

  /** How often a run held at the floor looks again. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);

  private final CacheStore store;
  private final long floorBytes;
  private final Duration interval;
  private final ReentrantLock turn = new ReentrantLock(true);

  /**
   * @param store the caches, whose disk is looked at and whose unread bases are shed
   * @param floorBytes the free bytes kept ({@code --disk-floor}); 0 turns the floor off
   * @param interval how long a held run waits before looking again
   */
  public DiskFloor(CacheStore store, long floorBytes, Duration interval) {
    this.store = store;
    this.floorBytes = floorBytes;
    this.interval = interval;
  }

  /**
   * Returns once the disk has {@code --disk-floor} free (shedding and waiting as needed), the run
   * is cancelled, or the free space cannot be read.
   *
   * @return lines for the run's log: what was shed and how long the run waited; none when the disk
   *     had room
   */
  public List<String> hold(BooleanSupplier cancelled) throws InterruptedException {
    List<String> lines = new ArrayList<>();
    if (floorBytes <= 0) {
      return lines;
    }
    // One run at a time: a run waiting here holds the next one back, as its job would.
    while (!turn.tryLock(100, TimeUnit.MILLISECONDS)) {
      if (cancelled.getAsBoolean()) {
        return lines;
      }
    }
    try {
      long free = free();
      if (free < 0 || free >= floorBytes) {
        return lines;
      }
      sayShort(free);
      Shed shed = shed();
      lines.add(
          "disk short: "
              + mib(free)
              + " MiB free where the caches are, under the floor of "
              + mib(floorBytes)
              + " MiB (--disk-floor); shed "
              + shed.kept()
              + " passes' kept cache layers and "
              + shed.bases()
              + " cache bases no run reads, "
              + mib(shed.bytes())
              + " MiB");
      LOG.info(
          "shed {} passes' kept cache layers and {} cache bases no run reads, {} bytes",
          shed.kept(),
          shed.bases(),
          shed.bytes());
      long started = System.nanoTime();
      boolean waited = false;
      while ((free = free()) >= 0 && free < floorBytes) {
        sayShort(free);
        if (cancelled.getAsBoolean()) {
          lines.add("cancelled while waiting for room on the disk");
          return lines;
        }
        waited = true;
        long end = System.nanoTime() + interval.toNanos();
        while (System.nanoTime() < end && !cancelled.getAsBoolean()) {
          Thread.sleep(Math.min(100, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
        }
      }
      if (waited) {
        Duration waitedFor = Duration.ofNanos(System.nanoTime() - started);
        store.figures().waited(waitedFor.toMillis());
        long s = waitedFor.toSeconds();
        lines.add("waited " + s + "s for room on the disk");
        LOG.info("a run waited {}s for room on the disk", s);
      }
      return lines;
    } finally {
      turn.unlock();
    }
  }

  /** What {@link #shed} removed: how many kept sets and bases, and the bytes their files took. */
  record Shed(int kept, int bases, long bytes) {}

  /**
   * Removes every kept set of layers, then every base no run reads or promotes, whole: their next
   * runs start afresh.
   */
  Shed shed() {
    CacheStore.Amount kept = store.shedKept();
    List<Path> gone = new ArrayList<>();
    try (DirectoryStream<Path> bases = Files.newDirectoryStream(store.root().resolve("bases"))) {
      for (Path base : bases) {
        Path trash = store.moveAsideIfUnread(base);
        if (trash != null) {
          gone.add(trash);
        }
      }
    } catch (IOException e) {
      LOG.warn("could not shed the caches' bases: {}", e.toString());
    }
    long bytes = 0;
    for (Path p : gone) {
      try {
        bytes += Layers.sizeOf(p);
      } catch (IOException e) {
        LOG.debug("could not size {}: {}", p, e.toString());
      }
      CacheStore.deleteQuietly(p, "a shed base");
    }
    store.figures().shed(gone.size(), bytes);
    return new Shed(kept.count(), gone.size(), bytes + kept.bytes());
  }

  private void sayShort(long free) {
    LOG.warn(
        "disk short: {} MiB free under {}, the floor is {} MiB",
        mib(free),
        store.root(),
        mib(floorBytes));
  }

  /** The free bytes on the caches' disk, or -1 when they cannot be read. */
  private long free() {
    try {
      return Files.getFileStore(store.root()).getUsableSpace();
    } catch (IOException e) {
      LOG.warn("could not read the free space under {}: {}", store.root(), e.toString());
      return -1;
    }
  }

  private static long mib(long bytes) {
    return bytes >> 20;
  }
}
