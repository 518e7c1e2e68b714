package dev.knotless.storage.push;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Write;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.RefRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Turns a push's accepted decisions into {@code applyWrites} batches: each claim beside its ref's
 * write, at most {@value #MAX_WRITES} writes a batch, the head writes (a first push's repo record
 * and the pack record) in the first. Pure and thread-safe.
 */
public final class PushPlan {
  /** The most writes one {@code applyWrites} takes. */
  public static final int MAX_WRITES = 200;

  private PushPlan() {}

  /** One {@code applyWrites} call and the refs whose writes ride in it. */
  public record Batch(List<Write> writes, List<RefDecision> refs) {
    public Batch {
      writes = List.copyOf(writes);
      refs = List.copyOf(refs);
    }
  }

  /**
   * The pack key a ref's record names for {@code target}: the push's own pack when it holds the
   * target as a tip, else the pack a live remote ref at that target names, else null.
   */
  public static String packFor(
      String target, String pushPack, Set<String> pushTips, Collection<RefRecord> remote) {
    if (pushPack != null && pushTips.contains(target)) {
      return pushPack;
    }
    for (RefRecord r : remote) {
      if (target.equals(r.target()) && r.pack() != null) {
        return r.pack();
      }
    }
    return null;
  }

  /**
   * The generation a decision's ref record is written at, pushed at {@code now}: a new ref starts
   * at the time in milliseconds, a move goes one up, and a ref over a pre-0.6 empty record takes
   * the larger of the two. -1 for a delete, which leaves no record.
   */
  public static long generationAfter(RefDecision d, Instant now) {
    if (d instanceof RefDecision.Create c) {
      return c.previous() == null
          ? now.toEpochMilli()
          : Math.max(c.previous().generation() + 1, now.toEpochMilli());
    }
    if (d instanceof RefDecision.Move m) {
      return m.current().generation() + 1;
    }
    if (d instanceof RefDecision.Delete) {
      return -1;
    }
    throw new IllegalArgumentException("nothing is written for " + d);
  }

  /** The writes of one accepted decision, its claim (if any) first. */
  public static List<Write> writesFor(String key, RefDecision d, String pack, Instant now) {
    String at = now.toString();
    long millis = now.toEpochMilli();
    String ref = d.update().ref();
    String refKey = Keys.ref(key, ref);
    List<Write> out = new ArrayList<>(2);
    if (d instanceof RefDecision.Create c) {
      if (c.previous() == null) {
        RefRecord r = new RefRecord(refKey, ref, c.update().target(), millis, pack, at, at, null);
        out.add(Write.create(Lexicons.REF, refKey, r.toJson()));
      } else {
        // An empty record a pre-0.6 client left: moving off its generation takes a claim.
        RefRecord prev = c.previous();
        out.add(claim(key, ref, prev.generation(), null, c.update().target(), pack, at));
        long gen = generationAfter(c, now);
        RefRecord r = new RefRecord(refKey, ref, c.update().target(), gen, pack, at, at, null);
        out.add(Write.update(Lexicons.REF, refKey, r.toJson()));
      }
    } else if (d instanceof RefDecision.Move m) {
      RefRecord cur = m.current();
      out.add(claim(key, ref, cur.generation(), cur.target(), m.update().target(), pack, at));
      RefRecord r =
          new RefRecord(
              refKey,
              ref,
              m.update().target(),
              generationAfter(m, now),
              pack,
              cur.createdAt() != null ? cur.createdAt() : at,
              at,
              null);
      out.add(Write.update(Lexicons.REF, refKey, r.toJson()));
    } else if (d instanceof RefDecision.Delete del) {
      RefRecord cur = del.current();
      out.add(claim(key, ref, cur.generation(), cur.target(), null, null, at));
      out.add(Write.delete(Lexicons.REF, refKey));
    } else {
      throw new IllegalArgumentException("nothing to write for " + d);
    }
    return out;
  }

  private static Write claim(
      String key, String ref, long generation, String from, String to, String pack, String at) {
    ObjectNode v = new ClaimRecord(null, from, to, pack, at, null).toJson();
    return Write.create(Lexicons.CLAIM, Keys.claim(key, ref, generation), v);
  }

  /**
   * Packs the head writes and each ref's writes into batches of at most {@value #MAX_WRITES},
   * keeping a ref's writes together.
   */
  public static List<Batch> batches(List<Write> head, List<RefDecision> refs, List<List<Write>> w) {
    List<Batch> out = new ArrayList<>();
    List<Write> writes = new ArrayList<>(head);
    List<RefDecision> inBatch = new ArrayList<>();
    for (int i = 0; i < refs.size(); i++) {
      List<Write> rw = w.get(i);
      if (writes.size() + rw.size() > MAX_WRITES) {
        out.add(new Batch(writes, inBatch));
        writes = new ArrayList<>();
        inBatch = new ArrayList<>();
      }
      writes.addAll(rw);
      inBatch.add(refs.get(i));
    }
    if (!writes.isEmpty()) {
      out.add(new Batch(writes, inBatch));
    }
    return out;
  }
}
