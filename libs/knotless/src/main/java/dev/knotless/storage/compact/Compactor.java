package dev.knotless.storage.compact;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.pack.PackStore;
import dev.knotless.storage.push.PushPlan;
import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Folds a repository's old packs into one, and drops claims and empty pre-0.6 ref records a day
 * old. Only the owner runs it (the client must be logged in as the owner). The clock is injected so
 * tests can age packs. Thread-safe; each call is independent.
 */
public final class Compactor {
  private final RecordStore client;
  private final SnapshotReader reader;
  private final Fetcher fetcher;
  private final PackStore packs;
  private final StorageCache cache;
  private final Clock clock;
  private final Settings settings;

  public Compactor(RecordStore client, StorageCache cache, Clock clock, Settings settings) {
    this.client = client;
    this.cache = cache;
    this.clock = clock;
    this.settings = settings;
    this.reader = new SnapshotReader(client, cache, clock);
    this.fetcher = new Fetcher(client, cache, clock);
    this.packs = new PackStore(client, cache, clock);
  }

  /** What a compaction did. {@code skipped} says why it did nothing, or is null. */
  public record Result(
      String skipped, String pack, int packsFolded, int claimsDeleted, int emptyRefsDeleted) {}

  /**
   * Compacts now, or with {@code dueOnly} only once the repository holds the threshold's packs
   * (counting a page past the first as 100 more).
   */
  public Result compact(RepoAddress repo, boolean dueOnly) throws IOException {
    Snapshot snap = reader.read(repo, SnapshotReader.Packs.NONE);
    if (!snap.exists()) {
      throw new IOException("no repository at " + repo.url());
    }
    String key = snap.repo().key();
    if (dueOnly) {
      RecordPage first =
          client.listRecords(
              repo.did(), Lexicons.PACK, RangeScanner.PAGE, Keys.scanStart(key), false);
      long count = first.records().stream().filter(r -> Keys.inRange(key, r.rkey())).count();
      if (count == RangeScanner.PAGE) {
        count += RangeScanner.PAGE;
      }
      if (count < settings.compactThreshold()) {
        return new Result(
            count + " packs, below the threshold of " + settings.compactThreshold(), null, 0, 0, 0);
      }
    }
    List<PackRecord> all = new ArrayList<>();
    for (Record r : RangeScanner.scan(reader.source(repo, Lexicons.PACK), key)) {
      all.add(PackRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    List<ClaimRecord> claims = new ArrayList<>();
    for (Record r : RangeScanner.scan(reader.source(repo, Lexicons.CLAIM), key)) {
      claims.add(ClaimRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    CompactionPlan plan =
        CompactionPlan.decide(all, claims, snap.refs(), clock.instant(), settings.claimGrace());
    if (!plan.folds() && !plan.prunes()) {
      return new Result(
          "fewer than "
              + CompactionPlan.MIN_OLD_PACKS
              + " packs older than ten minutes, and no claim a day old",
          null,
          0,
          0,
          0);
    }
    // Stale claims and empty refs go whether or not there is a fold to make.
    PackRecord fold = plan.folds() ? fold(repo, snap, plan) : null;
    List<Write> writes = new ArrayList<>();
    if (fold != null) {
      writes.add(Write.create(Lexicons.PACK, fold.rkey(), fold.toJson()));
    }
    if (plan.folds()) {
      // With nothing live and no young base, the old packs hold nothing to keep.
      plan.old().forEach(p -> writes.add(Write.delete(Lexicons.PACK, p.rkey())));
    }
    for (ClaimRecord c : plan.staleClaims()) {
      writes.add(Write.delete(Lexicons.CLAIM, c.rkey()));
    }
    Set<String> claimKeys = new HashSet<>();
    claims.forEach(c -> claimKeys.add(c.rkey()));
    String now = clock.instant().toString();
    for (RefRecord r : plan.emptyRefs()) {
      // The claim makes a writer that read this record collide rather than move a ref made since.
      String claimKey = r.rkey() + "." + r.generation();
      if (claimKeys.contains(claimKey)) {
        // Its claim is there already: keep it one more round rather than delete it now.
        writes.remove(Write.delete(Lexicons.CLAIM, claimKey));
      } else {
        writes.add(
            Write.create(
                Lexicons.CLAIM,
                claimKey,
                new ClaimRecord(claimKey, null, null, null, now, null).toJson()));
      }
      writes.add(Write.delete(Lexicons.REF, r.rkey()));
    }
    for (int i = 0; i < writes.size(); i += PushPlan.MAX_WRITES) {
      client.applyWrites(
          repo.did(), writes.subList(i, Math.min(writes.size(), i + PushPlan.MAX_WRITES)));
    }
    return new Result(
        null,
        fold == null ? null : fold.rkey(),
        plan.folds() ? plan.old().size() : 0,
        plan.staleClaims().size(),
        plan.emptyRefs().size());
  }

  /**
   * Syncs the mirror and packs every live ref target, with the young packs' bases, into one pack
   * whose tips are one per live ref (the young bases, when no ref is live, since a pack needs a
   * tip). Null when there is nothing to keep.
   */
  private PackRecord fold(RepoAddress repo, Snapshot snap, CompactionPlan plan) throws IOException {
    String key = snap.repo().key();
    Mirror mirror = Mirror.open(cache.dir(), repo.did(), key);
    mirror.sync(snap, fetcher);
    List<String> youngBases = new ArrayList<>();
    plan.young().forEach(p -> youngBases.addAll(p.bases()));
    try {
      mirror.fetch(snap, fetcher, youngBases);
    } catch (IOException e) {
      throw new IOException(
          "compaction stopped, nothing deleted: a base of a young pack cannot be fetched ("
              + e.getMessage()
              + "); it folds once that pack is old enough",
          e);
    }
    List<String> tips = CompactionPlan.tips(snap.refs());
    if (tips.isEmpty()) {
      tips = youngBases.stream().distinct().sorted().toList();
    }
    if (tips.isEmpty()) {
      return null;
    }
    // The young packs' bases ride in the fold, listed as no tip: a fetch missing one finds it in
    // the walk that takes every pack not yet indexed.
    StringBuilder in = new StringBuilder();
    CompactionPlan.contents(snap.refs(), plan.young()).forEach(t -> in.append(t).append('\n'));
    byte[] bytes =
        mirror
            .git()
            .run(
                in.toString().getBytes(StandardCharsets.UTF_8),
                "pack-objects",
                "--revs",
                "--stdout",
                "-q",
                "--delta-base-offset");
    List<String> supersedes = plan.old().stream().map(PackRecord::rkey).toList();
    return packs.place(Keys.pack(key, Tid.next()), bytes, tips, List.of(), supersedes);
  }
}
