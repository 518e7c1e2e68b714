package dev.knotless.storage.compact;

import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a compaction folds and drops, decided from the records and the time. Pure and thread-safe.
 *
 * @param old packs older than {@link #MIN_AGE}, to fold and delete
 * @param young packs that stay; their bases go into the fold
 * @param staleClaims claims older than the grace, to delete
 * @param emptyRefs empty pre-0.6 ref records older than the grace, to delete beside a claim
 */
public record CompactionPlan(
    List<PackRecord> old,
    List<PackRecord> young,
    List<ClaimRecord> staleClaims,
    List<RefRecord> emptyRefs) {
  /** Only packs older than this are folded, so a fetch in progress keeps the packs it listed. */
  public static final Duration MIN_AGE = Duration.ofMinutes(10);

  /** A fold needs at least this many old packs. */
  public static final int MIN_OLD_PACKS = 2;

  public static CompactionPlan decide(
      List<PackRecord> packs,
      List<ClaimRecord> claims,
      List<RefRecord> refs,
      Instant now,
      Duration claimGrace) {
    List<PackRecord> old = new ArrayList<>();
    List<PackRecord> young = new ArrayList<>();
    for (PackRecord p : packs) {
      (p.writtenAt().isBefore(now.minus(MIN_AGE)) ? old : young).add(p);
    }
    Instant cutoff = now.minus(claimGrace);
    List<ClaimRecord> stale = new ArrayList<>();
    for (ClaimRecord c : claims) {
      Instant at = parse(c.createdAt());
      if (at != null && at.isBefore(cutoff)) {
        stale.add(c);
      }
    }
    List<RefRecord> empty = new ArrayList<>();
    for (RefRecord r : refs) {
      if (!r.live()) {
        Instant at = parse(r.updatedAt() != null ? r.updatedAt() : r.createdAt());
        // Pre-0.6 records may carry no time; they are from before 0.6, so long past a day.
        if (at == null || at.isBefore(cutoff)) {
          empty.add(r);
        }
      }
    }
    return new CompactionPlan(old, young, stale, empty);
  }

  /** Whether there are claims or empty refs a day old to drop, fold or no fold. */
  public boolean prunes() {
    return !staleClaims.isEmpty() || !emptyRefs.isEmpty();
  }

  /** Whether there is a fold to make: at least two old packs. */
  public boolean folds() {
    return old.size() >= MIN_OLD_PACKS;
  }

  /**
   * The fold's tips: one per live ref, in ref-record order, a target two refs share listed once.
   */
  public static List<String> tips(List<RefRecord> refs) {
    Set<String> out = new LinkedHashSet<>();
    refs.stream().filter(RefRecord::live).forEach(r -> out.add(r.target()));
    return List.copyOf(out);
  }

  /**
   * What the fold holds: every live ref target, then the bases the young packs name, which a fetch
   * of a young pack wants though no ref may reach them any more.
   */
  public static List<String> contents(List<RefRecord> refs, List<PackRecord> young) {
    Set<String> out = new LinkedHashSet<>(tips(refs));
    young.forEach(p -> out.addAll(p.bases()));
    return List.copyOf(out);
  }

  private static Instant parse(String iso) {
    if (iso == null) {
      return null;
    }
    try {
      return Instant.parse(iso);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
