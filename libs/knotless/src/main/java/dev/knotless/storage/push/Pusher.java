package dev.knotless.storage.push;

import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.pack.PackPlacement;
import dev.knotless.storage.pack.PackStore;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.storage.records.RepoRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes refs from a local repository to a knotless repository: snapshot, refspec checks, one pack,
 * then claims and ref writes in {@code applyWrites} batches. A warm push is two round trips. The
 * client must be logged in as the owner. Thread-safe; each call is independent.
 */
public final class Pusher {
  /** A push refuses to write against refs read longer ago than this. */
  public static final Duration MAX_STALENESS = Duration.ofHours(12);

  /** What the refs of a batch that could not land because another ref moved are told. */
  public static final String MOVED_CONCURRENTLY =
      "not pushed: another ref in the push moved concurrently";

  private static final Logger LOG = LoggerFactory.getLogger(Pusher.class);
  private final XrpcClient client;
  private final SnapshotReader reader;
  private final StorageCache cache;
  private final PackStore packs;
  private final Clock clock;
  private final Duration claimGrace;

  public Pusher(XrpcClient client, StorageCache cache, Clock clock, Duration claimGrace) {
    this.client = client;
    this.cache = cache;
    this.clock = clock;
    this.claimGrace = claimGrace;
    this.reader = new SnapshotReader(client, cache, clock);
    this.packs = new PackStore(client, cache, clock);
  }

  /** Reads the snapshot and pushes. */
  public PushResult push(RepoAddress repo, Git local, List<RefUpdate> updates) throws IOException {
    return push(reader.read(repo, SnapshotReader.Packs.NONE), local, updates);
  }

  /** Pushes against a snapshot already read (as a commit without a checkout does). */
  public PushResult push(Snapshot snap, Git local, List<RefUpdate> updates) throws IOException {
    Map<String, String> errors = new LinkedHashMap<>();
    List<RefDecision> accepted = new ArrayList<>();
    RefspecCheck.Local facts =
        new RefspecCheck.Local() {
          @Override
          public boolean has(String sha) throws IOException {
            return local.has(sha);
          }

          @Override
          public boolean isAncestor(String a, String d) throws IOException {
            return local.isAncestor(a, d);
          }
        };
    for (RefUpdate u : updates) {
      RefDecision d = RefspecCheck.decide(u, snap.ref(u.ref()).orElse(null), facts);
      if (d instanceof RefDecision.Refused r) {
        errors.put(u.ref(), r.reason());
      } else if (!(d instanceof RefDecision.UpToDate)) {
        accepted.add(d);
      }
    }
    if (accepted.isEmpty()) {
      return result(updates, errors, false);
    }
    String key;
    if (snap.exists()) {
      key = snap.repo().key();
    } else {
      key = createRepo(snap, accepted);
      if (key == null) {
        accepted.forEach(d -> errors.put(d.update().ref(), RefspecCheck.FETCH_FIRST));
        return result(updates, errors, false);
      }
    }
    Map<String, RefRecord> live = snap.liveRefs();
    Set<String> remoteTargets = new TreeSet<>();
    live.values().forEach(r -> remoteTargets.add(r.target()));
    TreeSet<String> tips = new TreeSet<>();
    for (RefDecision d : accepted) {
      if (!d.update().delete() && !remoteTargets.contains(d.update().target())) {
        tips.add(d.update().target());
      }
    }
    PackRecord pack = null;
    if (!tips.isEmpty()) {
      List<String> bases = new ArrayList<>(remoteTargets);
      bases.removeAll(local.missing(remoteTargets));
      byte[] bytes = packObjects(local, tips, bases);
      if (PackPlacement.objectCount(bytes) > 0) {
        pack = packs.place(Keys.pack(key, Tid.next()), bytes, List.copyOf(tips), bases, List.of());
      }
    }
    Duration limit =
        MAX_STALENESS.compareTo(claimGrace.dividedBy(2)) < 0
            ? MAX_STALENESS
            : claimGrace.dividedBy(2);
    if (Duration.between(snap.readAt(), clock.instant()).compareTo(limit) > 0) {
      String why = "the refs were read more than " + limit.toHours() + " hours ago; push again";
      accepted.forEach(d -> errors.put(d.update().ref(), why));
      return result(updates, errors, false);
    }
    Instant now = clock.instant();
    List<List<Write>> refWrites = new ArrayList<>();
    for (RefDecision d : accepted) {
      String packKey =
          d.update().delete()
              ? null
              : PushPlan.packFor(
                  d.update().target(), pack == null ? null : pack.rkey(), tips, live.values());
      refWrites.add(PushPlan.writesFor(key, d, packKey, now));
    }
    List<Write> head =
        pack == null ? List.of() : List.of(Write.create(Lexicons.PACK, pack.rkey(), pack.toJson()));
    List<PushPlan.Batch> batches = PushPlan.batches(head, accepted, refWrites);
    boolean landed = false;
    for (int i = 0; i < batches.size(); i++) {
      try {
        client.applyWrites(snap.address().did(), batches.get(i).writes());
        landed = true;
      } catch (XrpcException e) {
        List<RefDecision> pending = new ArrayList<>();
        for (int j = i; j < batches.size(); j++) {
          pending.addAll(batches.get(j).refs());
        }
        explainRefusal(snap.address(), key, pending, e, errors);
        break;
      }
    }
    return result(updates, errors, landed);
  }

  /** After a refused batch: reread, and tell each pending ref whether it moved or only waited. */
  private void explainRefusal(
      RepoAddress repo,
      String key,
      List<RefDecision> pending,
      XrpcException e,
      Map<String, String> errors)
      throws IOException {
    if (e.kind() == XrpcException.Kind.RATE_LIMITED) {
      String when = e.rateLimitReset().map(t -> "writes resume at " + t).orElse("try again later");
      pending.forEach(d -> errors.put(d.update().ref(), "rate limited by the PDS; " + when));
      return;
    }
    Map<String, RefRecord> now = new LinkedHashMap<>();
    for (RefRecord r : reader.rereadRefs(repo, key)) {
      now.put(r.name(), r);
    }
    List<String> moved = new ArrayList<>();
    for (RefDecision d : pending) {
      RefRecord r = now.get(d.update().ref());
      RefRecord read =
          d instanceof RefDecision.Create c
              ? c.previous()
              : d instanceof RefDecision.Move m ? m.current() : ((RefDecision.Delete) d).current();
      boolean changed = read == null ? r != null : r == null || r.generation() != read.generation();
      if (changed) {
        moved.add(d.update().ref());
      }
    }
    if (moved.isEmpty()) {
      throw e;
    }
    LOG.debug("push refused; refs that moved concurrently: {}", moved);
    for (RefDecision d : pending) {
      String ref = d.update().ref();
      errors.put(ref, moved.contains(ref) ? RefspecCheck.FETCH_FIRST : MOVED_CONCURRENTLY);
    }
  }

  /** Creates the repo record of a first push; null when a racing first push made it first. */
  private String createRepo(Snapshot snap, List<RefDecision> accepted) throws IOException {
    String branch = null;
    for (RefDecision d : accepted) {
      String ref = d.update().ref();
      if (!d.update().delete() && ref.startsWith("refs/heads/")) {
        String shortName = ref.substring("refs/heads/".length());
        if (shortName.equals("main")) {
          branch = "main";
          break;
        }
        branch = branch == null ? shortName : branch;
      }
    }
    RepoRecord record = RepoRecord.create(snap.address().name(), branch, clock.instant());
    try {
      client.putRecord(
          snap.address().did(),
          Lexicons.REPO,
          snap.address().name(),
          record.toJson(),
          Swap.absent());
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.INVALID_SWAP) {
        return null;
      }
      throw e;
    }
    cache.putKey(snap.address(), record.key());
    return record.key();
  }

  /** A self-contained pack of every object reachable from the tips and not from the bases. */
  static byte[] packObjects(Git local, Set<String> tips, List<String> bases) throws IOException {
    StringBuilder in = new StringBuilder();
    tips.forEach(t -> in.append(t).append('\n'));
    bases.forEach(b -> in.append('^').append(b).append('\n'));
    return local.run(
        in.toString().getBytes(StandardCharsets.UTF_8),
        "pack-objects",
        "--revs",
        "--stdout",
        "-q",
        "--delta-base-offset");
  }

  private static PushResult result(
      List<RefUpdate> updates, Map<String, String> errors, boolean landed) {
    List<PushResult.Outcome> out = new ArrayList<>();
    for (RefUpdate u : updates) {
      out.add(new PushResult.Outcome(u.ref(), errors.get(u.ref())));
    }
    return new PushResult(out, landed);
  }
}
