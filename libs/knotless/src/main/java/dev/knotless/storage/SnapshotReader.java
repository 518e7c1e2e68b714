package dev.knotless.storage;

import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RedirectRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.storage.records.RepoRecord;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads snapshots. With the key cached, the repo record and the refs (and the newest packs, when
 * asked) go out at once: one round trip. Without, the repo record comes first: two. A cached key
 * that no longer matches is replaced and the refs reread under the new one. Refs past a full first
 * page are read in gaps from both ends at once ({@link RangeScanner#finishSplit}). Thread-safe.
 */
public final class SnapshotReader {
  /** Which packs a snapshot reads beside the refs. */
  public enum Packs {
    /** None: a push, or a mirror that syncs often. */
    NONE(0),
    /** The newest 4: a fetch, where a recent push is usually among them. */
    NEWEST(4),
    /** A page of 100: a clone, which wants every pack. */
    PAGE(100);

    final int count;

    Packs(int count) {
      this.count = count;
    }
  }

  /** How many redirect hops a lookup follows. */
  public static final int MAX_REDIRECT_HOPS = 4;

  private final RecordStore client;
  private final StorageCache cache;
  private final Clock clock;

  public SnapshotReader(RecordStore client, StorageCache cache, Clock clock) {
    this.client = client;
    this.cache = cache;
    this.clock = clock;
  }

  /** Reads the repository's snapshot, following redirects from a former name. */
  public Snapshot read(RepoAddress address, Packs packs) throws IOException {
    return read(address, packs, true);
  }

  /**
   * Reads the repository's record alone, following redirects from a former name, as {@link #read}
   * does: what a runner needs to know which repository a name means, one round trip, where a
   * snapshot without a cached key takes two. The snapshot it gives holds no refs and no packs.
   */
  public Snapshot readRecord(RepoAddress address) throws IOException {
    return read(address, Packs.NONE, false);
  }

  private Snapshot read(RepoAddress address, Packs packs, boolean refs) throws IOException {
    String renamedFrom = null;
    RepoAddress at = address;
    for (int hop = 0; ; hop++) {
      Snapshot s = refs ? readAt(at, packs, renamedFrom) : recordAt(at, renamedFrom);
      if (s.exists()) {
        return s;
      }
      Optional<RedirectRecord> redirect = redirect(at);
      if (redirect.isEmpty()) {
        return s;
      }
      if (hop >= MAX_REDIRECT_HOPS) {
        throw new IOException(
            address.url() + " redirects more than " + MAX_REDIRECT_HOPS + " times; giving up");
      }
      RedirectRecord r = redirect.get();
      if (!r.repo().did().equals(at.did())) {
        throw new IOException(
            at.url() + " redirects to another account (" + r.repo() + "), which is not followed");
      }
      renamedFrom = renamedFrom == null ? address.name() : renamedFrom;
      at = at.renamed(r.repo().rkey());
      Optional<Record> target = client.findRecord(at.did(), Lexicons.REPO, at.name());
      if (target.isEmpty() || !r.key().equals(target.get().value().path("key").asText())) {
        throw new IOException(
            address.url()
                + " redirects to "
                + at.url()
                + ", which is not the repository it names (redirect key "
                + r.key()
                + ", found "
                + target.map(t -> t.value().path("key").asText("none")).orElse("no record")
                + ")");
      }
    }
  }

  private Optional<RedirectRecord> redirect(RepoAddress at) throws IOException {
    Optional<Record> r = client.findRecord(at.did(), Lexicons.REDIRECT, at.name());
    if (r.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(RedirectRecord.parse(r.get().uri(), at.name(), r.get().value()));
  }

  private Snapshot recordAt(RepoAddress at, String renamedFrom) throws IOException {
    var started = clock.instant();
    Optional<Record> repoRecord = find(at);
    if (repoRecord.isEmpty()) {
      cache.putKey(at, null);
      return new Snapshot(at, null, List.of(), List.of(), true, renamedFrom, started);
    }
    RepoRecord record =
        RepoRecord.parse(repoRecord.get().uri(), at.name(), repoRecord.get().value());
    cache.putKey(at, record.key());
    return new Snapshot(at, record, List.of(), List.of(), false, renamedFrom, started);
  }

  private Snapshot readAt(RepoAddress at, Packs packs, String renamedFrom) throws IOException {
    var started = clock.instant();
    Optional<String> cached = cache.key(at);
    if (cached.isPresent()) {
      String key = cached.get();
      CompletableFuture<List<Record>> refsFirst =
          Threads.async(() -> firstPage(at, Lexicons.REF, key, 100));
      CompletableFuture<List<Record>> packPage =
          packs == Packs.NONE
              ? CompletableFuture.completedFuture(List.of())
              : Threads.async(() -> firstPage(at, Lexicons.PACK, key, packs.count));
      // The repo record on this thread, which would only wait otherwise: one thread fewer to wake,
      // so on a busy machine the reads still go out together.
      Optional<Record> repoRecord;
      try {
        repoRecord = find(at);
      } catch (IOException | RuntimeException e) {
        refsFirst.cancel(false);
        packPage.cancel(false);
        throw e;
      }
      List<Record> refs = RangeScanner.join(refsFirst);
      List<Record> packRecords = RangeScanner.join(packPage);
      if (repoRecord.isEmpty()) {
        cache.putKey(at, null);
        return new Snapshot(at, null, List.of(), List.of(), true, renamedFrom, started);
      }
      RepoRecord record =
          RepoRecord.parse(repoRecord.get().uri(), at.name(), repoRecord.get().value());
      if (record.key().equals(key)) {
        return assemble(at, record, key, refs, packRecords, packs, renamedFrom, started);
      }
      // The name now means another repository: read it under its own key.
      cache.putKey(at, record.key());
      return readRanges(at, record, packs, renamedFrom, started);
    }
    Optional<Record> repoRecord = find(at);
    if (repoRecord.isEmpty()) {
      return new Snapshot(at, null, List.of(), List.of(), true, renamedFrom, started);
    }
    RepoRecord record =
        RepoRecord.parse(repoRecord.get().uri(), at.name(), repoRecord.get().value());
    cache.putKey(at, record.key());
    return readRanges(at, record, packs, renamedFrom, started);
  }

  private Snapshot readRanges(
      RepoAddress at, RepoRecord record, Packs packs, String renamedFrom, java.time.Instant started)
      throws IOException {
    String key = record.key();
    CompletableFuture<List<Record>> refsFirst =
        Threads.async(() -> firstPage(at, Lexicons.REF, key, 100));
    CompletableFuture<List<Record>> packPage =
        packs == Packs.NONE
            ? CompletableFuture.completedFuture(List.of())
            : Threads.async(() -> firstPage(at, Lexicons.PACK, key, packs.count));
    List<Record> refs = RangeScanner.join(refsFirst);
    List<Record> packRecords = RangeScanner.join(packPage);
    return assemble(at, record, key, refs, packRecords, packs, renamedFrom, started);
  }

  private Snapshot assemble(
      RepoAddress at,
      RepoRecord record,
      String key,
      List<Record> refsFirst,
      List<Record> packRecords,
      Packs packs,
      String renamedFrom,
      java.time.Instant started)
      throws IOException {
    List<Record> refRecords = refsFirst;
    if (refsFirst.size() == RangeScanner.PAGE) {
      refRecords = RangeScanner.finishSplit(source(at, Lexicons.REF), key, refsFirst, Threads.IO);
    }
    List<RefRecord> refs = new ArrayList<>();
    for (Record r : refRecords) {
      refs.add(RefRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    List<PackRecord> newest = new ArrayList<>();
    for (Record r : packRecords) {
      newest.add(PackRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    boolean exhausted = packs == Packs.NONE ? false : packRecords.size() < packs.count;
    return new Snapshot(at, record, refs, newest, exhausted, renamedFrom, started);
  }

  /** Reads every ref record of the repository again, as after a refused write. */
  public List<RefRecord> rereadRefs(RepoAddress at, String key) throws IOException {
    List<Record> first = firstPage(at, Lexicons.REF, key, 100);
    List<Record> all =
        first.size() == RangeScanner.PAGE
            ? RangeScanner.finishSplit(source(at, Lexicons.REF), key, first, Threads.IO)
            : first;
    List<RefRecord> refs = new ArrayList<>();
    for (Record r : all) {
      refs.add(RefRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    return refs;
  }

  private Optional<Record> find(RepoAddress at) throws IOException {
    return client.findRecord(at.did(), Lexicons.REPO, at.name());
  }

  /** The first page of the repository's range, only keys within it. */
  private List<Record> firstPage(RepoAddress at, String collection, String key, int limit)
      throws IOException {
    RecordPage page = client.listRecords(at.did(), collection, limit, Keys.scanStart(key), false);
    List<Record> out = new ArrayList<>();
    for (Record r : page.records()) {
      if (!Keys.inRange(key, r.rkey())) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  /** A page source over one collection of the repository's account, downward and upward. */
  public RangeScanner.PageSource source(RepoAddress at, String collection) {
    return new RangeScanner.PageSource() {
      @Override
      public RecordPage below(String cursor) throws IOException {
        return client.listRecords(at.did(), collection, RangeScanner.PAGE, cursor, false);
      }

      @Override
      public Optional<RecordPage> above(String cursor) throws IOException {
        return Optional.of(
            client.listRecords(at.did(), collection, RangeScanner.PAGE, cursor, true));
      }
    };
  }

  static AtUri uri(RepoAddress at, String collection, String rkey) {
    return new AtUri(at.did(), collection, rkey);
  }
}
