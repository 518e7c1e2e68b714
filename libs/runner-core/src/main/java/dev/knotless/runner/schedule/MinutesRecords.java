package dev.knotless.runner.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * When to write an owner's public minutes record: as their runs end, at most once every {@link
 * #SPACING}, except at once when the owner reaches 80% of the allowance or 100%. A change held back
 * by the spacing is due once the spacing has passed ({@link #due}). Not thread-safe.
 */
public final class MinutesRecords {

  /** The least time between two writes of one owner's record, bar the thresholds. */
  public static final Duration SPACING = Duration.ofMinutes(5);

  private final Map<String, Mark> marks = new HashMap<>();

  /**
   * Records that one of the owner's public runs ended, taking usage from {@code usedBefore} to
   * {@code usedAfter} milliseconds against {@code allowanceMillis} ({@link
   * SchedulerConfig#UNLIMITED} for none). Returns true when the record must be written now; the
   * caller then writes it. Otherwise the write is held back and comes out of {@link #due}.
   */
  public boolean runEnded(
      String ownerDid, long usedBefore, long usedAfter, long allowanceMillis, Instant now) {
    Mark mark = marks.computeIfAbsent(ownerDid, k -> new Mark());
    boolean crossed = band(usedAfter, allowanceMillis) > band(usedBefore, allowanceMillis);
    if (crossed || mark.writtenAt == null || !now.isBefore(mark.writtenAt.plus(SPACING))) {
      mark.writtenAt = now;
      mark.pending = false;
      return true;
    }
    mark.pending = true;
    return false;
  }

  /** The owners whose held-back write is due now; each is counted as written now. */
  public List<String> due(Instant now) {
    List<String> owners = new ArrayList<>();
    marks.forEach(
        (owner, mark) -> {
          if (mark.pending && !now.isBefore(mark.writtenAt.plus(SPACING))) {
            mark.pending = false;
            mark.writtenAt = now;
            owners.add(owner);
          }
        });
    owners.sort(null);
    return owners;
  }

  /** When the next held-back write falls due, if any is held back. */
  public Optional<Instant> nextDue() {
    return marks.values().stream()
        .filter(m -> m.pending)
        .map(m -> m.writtenAt.plus(SPACING))
        .min(Instant::compareTo);
  }

  /**
   * What the owner's public minutes record says now, from the usage counted: the caller that keeps
   * usage for several replicas passes a ledger of all their usage.
   */
  public static MinutesRecord record(
      String ownerDid, UsageLedger usage, SchedulerConfig config, Instant now) {
    java.time.LocalDate today = UsageLedger.day(now);
    long used = usage.usedMillis(ownerDid, false, today);
    Instant stops =
        usage
            .oldestCountedDay(ownerDid, false, today)
            .map(
                d ->
                    d.plusDays(UsageLedger.WINDOW_DAYS)
                        .atStartOfDay()
                        .toInstant(java.time.ZoneOffset.UTC))
            .orElse(now);
    long allowance = config.allowanceMillis(ownerDid, false);
    return new MinutesRecord(
        ownerDid,
        used / 60_000L,
        allowance == SchedulerConfig.UNLIMITED ? allowance : allowance / 60_000L,
        stops);
  }

  /** 0 below 80% of the allowance, 1 from 80%, 2 from 100%; always 0 with no allowance. */
  private static int band(long used, long allowance) {
    if (allowance == SchedulerConfig.UNLIMITED) {
      return 0;
    }
    if (used >= allowance) {
      return 2;
    }
    // used * 5 >= allowance * 4 is used >= 80% without rounding.
    return used * 5 >= allowance * 4 ? 1 : 0;
  }

  private static final class Mark {
    Instant writtenAt;
    boolean pending;
  }
}
