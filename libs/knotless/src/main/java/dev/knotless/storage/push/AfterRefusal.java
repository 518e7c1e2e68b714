package dev.knotless.storage.push;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.Threads;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a failed {@code applyWrites} of a push means, found by reading the refs again (and, for a
 * first push, the repo record, in the same round trip).
 *
 * <p>A failure says nothing reliable about whether the write landed: the reference PDS answers a
 * duplicate create with a 500, and a reply can be lost after the PDS committed the write. So the
 * batch counts as landed when a ref it moved now holds exactly the record the push wrote (its
 * target at the generation the push gave it; for a batch of deletes only, every ref gone), or, for
 * the first batch of a first push, when the repo record holds the key the push minted. Otherwise
 * each pending ref whose generation changed since the snapshot moved concurrently. Thread-safe; one
 * instance per failure.
 */
final class AfterRefusal {
  /** The verdict on one failed batch. */
  sealed interface Verdict {
    /** The batch's writes are on the PDS: the push goes on with the next batch. */
    record Landed() implements Verdict {}

    /** The batch did not land; {@code errors} says, per pending ref, what git is told. */
    record Refused(Map<String, String> errors) implements Verdict {}

    /** The batch did not land and no ref moved: the original failure stands. */
    record Unexplained() implements Verdict {}
  }

  private AfterRefusal() {}

  /**
   * Judges batch {@code failed} of {@code batches} after {@code e}.
   *
   * @param mintedKey the key a first push minted and wrote in its first batch, or null
   */
  static Verdict judge(
      RecordStore client,
      SnapshotReader reader,
      RepoAddress repo,
      String key,
      String mintedKey,
      List<PushPlan.Batch> batches,
      int failed,
      Instant writtenAt,
      XrpcException e)
      throws IOException {
    CompletableFuture<List<RefRecord>> refs = Threads.async(() -> reader.rereadRefs(repo, key));
    CompletableFuture<Optional<Record>> repoRecord =
        mintedKey == null
            ? CompletableFuture.completedFuture(Optional.empty())
            : Threads.async(() -> client.findRecord(repo.did(), Lexicons.REPO, repo.name()));
    Map<String, RefRecord> now = new LinkedHashMap<>();
    for (RefRecord r : RangeScanner.join(refs)) {
      now.put(r.name(), r);
    }
    Optional<Record> record = RangeScanner.join(repoRecord);
    if (mintedKey != null) {
      String found = record.map(r -> r.value().path("key").asText("")).orElse(null);
      if (found != null && !found.equals(mintedKey)) {
        // A racing first push made the repository under its own key: everything here is stale.
        Map<String, String> errors = new LinkedHashMap<>();
        pending(batches, failed)
            .forEach(d -> errors.put(d.update().ref(), RefspecCheck.FETCH_FIRST));
        return new Verdict.Refused(errors);
      }
      if (failed == 0 && found != null) {
        return new Verdict.Landed();
      }
    }
    if (landed(batches.get(failed).refs(), now, writtenAt)) {
      return new Verdict.Landed();
    }
    Map<String, String> errors = new LinkedHashMap<>();
    boolean anyMoved = false;
    for (RefDecision d : pending(batches, failed)) {
      boolean moved = moved(d, now.get(d.update().ref()));
      anyMoved |= moved;
      errors.put(d.update().ref(), moved ? RefspecCheck.FETCH_FIRST : Pusher.MOVED_CONCURRENTLY);
    }
    return anyMoved ? new Verdict.Refused(errors) : new Verdict.Unexplained();
  }

  /** Whether the batch's writes are there: any moved ref at exactly the record it wrote. */
  static boolean landed(List<RefDecision> refs, Map<String, RefRecord> now, Instant writtenAt) {
    boolean allDeletes = true;
    for (RefDecision d : refs) {
      RefRecord r = now.get(d.update().ref());
      if (d.update().delete()) {
        if (r != null) {
          return false;
        }
        continue;
      }
      allDeletes = false;
      if (r != null
          && d.update().target().equals(r.target())
          && r.generation() == PushPlan.generationAfter(d, writtenAt)) {
        return true;
      }
    }
    return allDeletes && !refs.isEmpty();
  }

  /** Whether the ref's record differs in generation from the one the push read. */
  static boolean moved(RefDecision d, RefRecord now) {
    RefRecord read =
        d instanceof RefDecision.Create c
            ? c.previous()
            : d instanceof RefDecision.Move m ? m.current() : ((RefDecision.Delete) d).current();
    return read == null ? now != null : now == null || now.generation() != read.generation();
  }

  private static List<RefDecision> pending(List<PushPlan.Batch> batches, int from) {
    return batches.subList(from, batches.size()).stream().flatMap(b -> b.refs().stream()).toList();
  }
}
