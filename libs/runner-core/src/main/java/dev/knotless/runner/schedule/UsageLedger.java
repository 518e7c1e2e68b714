package dev.knotless.runner.schedule;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Milliseconds of steps each owner's runs took, per UTC day, kept for the last {@value
 * #WINDOW_DAYS} days, public and private repositories apart. Seed it from the state file's {@code
 * used} and {@code used_private} at start; the {@link Scheduler} adds to it as runs end. Not
 * thread-safe.
 */
public final class UsageLedger {

  /** How many days, today included, usage counts against an allowance. */
  public static final int WINDOW_DAYS = 30;

  private final Map<Key, TreeMap<LocalDate, Long>> days = new HashMap<>();

  /** The UTC day an instant falls on, the unit usage is kept in. */
  public static LocalDate day(Instant instant) {
    return LocalDate.ofInstant(instant, ZoneOffset.UTC);
  }

  /** Adds milliseconds of steps to an owner's day. Negative amounts are refused. */
  public void add(String ownerDid, boolean privateRepo, LocalDate day, long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("step time cannot be negative, got " + millis + " ms");
    }
    if (millis == 0) {
      return;
    }
    days.computeIfAbsent(new Key(ownerDid, privateRepo), k -> new TreeMap<>())
        .merge(day, millis, Long::sum);
  }

  /**
   * Raises each owner's day to what {@code all} counts for it where {@code all} counts more: a
   * replica of a runner with several catches up with what the others' runs used (read from the
   * shared state), never counting its own runs twice.
   */
  public void catchUp(UsageLedger all) {
    all.days.forEach(
        (key, theirs) -> {
          TreeMap<LocalDate, Long> mine = days.computeIfAbsent(key, k -> new TreeMap<>());
          theirs.forEach((day, millis) -> mine.merge(day, millis, Math::max));
        });
  }

  /**
   * The milliseconds counted now against the owner's allowance: the last {@value #WINDOW_DAYS} days
   * up to {@code today}. Days before the window are forgotten.
   */
  public long usedMillis(String ownerDid, boolean privateRepo, LocalDate today) {
    TreeMap<LocalDate, Long> owned = window(ownerDid, privateRepo, today);
    long sum = 0;
    for (long v : owned.values()) {
      sum += v;
    }
    return sum;
  }

  /** The oldest day whose usage still counts, if any does. */
  public Optional<LocalDate> oldestCountedDay(
      String ownerDid, boolean privateRepo, LocalDate today) {
    TreeMap<LocalDate, Long> owned = window(ownerDid, privateRepo, today);
    return owned.isEmpty() ? Optional.empty() : Optional.of(owned.firstKey());
  }

  private TreeMap<LocalDate, Long> window(String ownerDid, boolean privateRepo, LocalDate today) {
    TreeMap<LocalDate, Long> owned = days.get(new Key(ownerDid, privateRepo));
    if (owned == null) {
      return new TreeMap<>();
    }
    owned.headMap(today.minusDays(WINDOW_DAYS - 1L)).clear();
    return owned;
  }

  private record Key(String ownerDid, boolean privateRepo) {}
}
