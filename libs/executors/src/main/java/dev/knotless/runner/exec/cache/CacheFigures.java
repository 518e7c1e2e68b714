package dev.knotless.runner.exec.cache;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the caches did since the runner started, counted as it happens, for a service to publish as
 * metrics ({@code knotless.run.cache.*}): how many runs' paths found a base with something in it
 * (hits) or an empty one (misses), promotions and the bytes they kept, promotions refused, bases
 * shed at the disk floor, and the time runs waited on it. Counters only go up. Thread-safe.
 */
public final class CacheFigures {

  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final AtomicLong promotions = new AtomicLong();
  private final AtomicLong bytesPromoted = new AtomicLong();
  private final AtomicLong notPromoted = new AtomicLong();
  private final AtomicLong basesShed = new AtomicLong();
  private final AtomicLong bytesShed = new AtomicLong();
  private final AtomicLong floorWaitMillis = new AtomicLong();
  private final AtomicLong layersKept = new AtomicLong();
  private final AtomicLong keptShed = new AtomicLong();

  /**
   * The counts now.
   *
   * @param hits paths opened over a base holding something
   * @param misses paths opened over an empty base, or read apart
   * @param promotions upper layers made a base's next generation
   * @param bytesPromoted bytes of regular files those moved into bases
   * @param notPromoted passing runs' layers not made current (another run made the base first, or
   *     over {@code --cache-max}, or an error)
   * @param basesShed bases removed at the disk floor
   * @param bytesShed the bytes their files took
   * @param floorWaitMillis the time runs waited at the disk floor, in milliseconds, all together
   * @param layersKept upper layers trusted pulls' and batches' passes kept for the push that lands
   *     them
   * @param keptShed kept sets shed at the disk floor (their bytes count in {@code bytesShed})
   */
  public record Snapshot(
      long hits,
      long misses,
      long promotions,
      long bytesPromoted,
      long notPromoted,
      long basesShed,
      long bytesShed,
      long floorWaitMillis,
      long layersKept,
      long keptShed) {}

  /** The counts now; each is read on its own, so they may be a moment apart. */
  public Snapshot snapshot() {
    return new Snapshot(
        hits.get(),
        misses.get(),
        promotions.get(),
        bytesPromoted.get(),
        notPromoted.get(),
        basesShed.get(),
        bytesShed.get(),
        floorWaitMillis.get(),
        layersKept.get(),
        keptShed.get());
  }

  void opened(boolean hit) {
    (hit ? hits : misses).incrementAndGet();
  }

  void promoted(long bytes) {
    promotions.incrementAndGet();
    bytesPromoted.addAndGet(bytes);
  }

  void notPromoted() {
    notPromoted.incrementAndGet();
  }

  void shed(int bases, long bytes) {
    basesShed.addAndGet(bases);
    bytesShed.addAndGet(bytes);
  }

  void kept(int layers) {
    layersKept.addAndGet(layers);
  }

  void shedKept(int sets, long bytes) {
    keptShed.addAndGet(sets);
    bytesShed.addAndGet(bytes);
  }

  void waited(long millis) {
    floorWaitMillis.addAndGet(millis);
  }
}
