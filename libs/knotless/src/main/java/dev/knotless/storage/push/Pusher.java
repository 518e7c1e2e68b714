package dev.knotless.storage.push;

import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import dev.knotless.storage.git.Git;
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
import java.util.concurrent.CompletableFuture;
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

  /** How a ref the PDS's rate limit kept out is told, before when it lets writes in again. */
  public static final String RATE_LIMITED = "rate limited by the PDS; ";

  private static final Logger LOG = LoggerFactory.getLogger(Pusher.class);
  private final RecordStore client;
  private final SnapshotReader reader;
  private final StorageCache cache;
  private final PackStore packs;
  private final Clock clock;
  private final Duration claimGrace;
  private final int countPacksUpTo;
  private NewRepoRunners newRepoRunners = () -> java.util.List.of();

  /** The runners a repository made by a push names, asked only when a push makes one. */
  @FunctionalInterface
  public interface NewRepoRunners {
    /** Their DIDs; empty for none. */
    java.util.List<String> get() throws IOException;
  }

  public Pusher(RecordStore client, StorageCache cache, Clock clock, Duration claimGrace) {
    this(client, cache, clock, claimGrace, 0);
  }

  /** This pusher, writing {@code runners} into the record of a repository its push makes. */
  public Pusher namingRunners(NewRepoRunners runners) {
    this.newRepoRunners = runners;
    return this;
  }

  private Pusher(
      RecordStore client,
      StorageCache cache,
      Clock clock,
      Duration claimGrace,
      int countPacksUpTo) {
    if (countPacksUpTo < 0) {
      throw new IllegalArgumentException("a pack count must not be negative: " + countPacksUpTo);
    }
    this.countPacksUpTo = countPacksUpTo;
    this.client = client;
    this.cache = cache;
    this.clock = clock;
    this.claimGrace = claimGrace;
    this.reader = new SnapshotReader(client, cache, clock);
    this.packs = new PackStore(client, cache, clock);
  }

  /**
   * A pusher that also counts the repository's packs, up to {@code threshold} (a page of 100 at
   * most, a full one counting as 200), beside its first {@code applyWrites} and in the same round
   * trip, for {@link PushResult#packs()}. 0 counts nothing.
   */
  public Pusher countingPacks(int threshold) {
    return new Pusher(client, cache, clock, claimGrace, threshold).namingRunners(newRepoRunners);
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
    RepoRecord created = snap.exists() ? null : withRunners(newRepo(snap, accepted));
    String key = created == null ? snap.repo().key() : created.key();
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
      // The pack is placed as pack-objects writes it: a large one's first part uploads while
      // the rest is still being compressed.
      long began = Trace.start();
      String rkey = Keys.pack(key, Tid.next());
      try {
        pack =
            packObjects(
                local,
                tips,
                bases,
                in -> packs.place(rkey, in, List.copyOf(tips), bases, List.of()));
      } catch (XrpcException e) {
        if (e.kind() != XrpcException.Kind.RATE_LIMITED) {
          throw e;
        }
        // Nothing is written yet, not even a first push's repo record.
        String when =
            e.rateLimitReset().map(t -> "blob uploads resume at " + t).orElse("try again later");
        accepted.forEach(d -> errors.put(d.update().ref(), RATE_LIMITED + when));
        return result(updates, errors, false);
      }
      Trace.step(
          "pack-objects and placing (" + (pack == null ? 0 : pack.size()) + " bytes)", began);
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
    List<Write> head = new ArrayList<>();
    if (created != null) {
      head.add(Write.create(Lexicons.REPO, snap.address().name(), created.toJson()));
    }
    if (pack != null) {
      head.add(Write.create(Lexicons.PACK, pack.rkey(), pack.toJson()));
    }
    List<PushPlan.Batch> batches = PushPlan.batches(head, accepted, refWrites);
    CompletableFuture<Integer> counted = countPacks(snap.address(), key, pack);
    boolean landed = false;
    for (int i = 0; i < batches.size(); i++) {
      try {
        long began = Trace.start();
        client.applyWrites(snap.address().did(), batches.get(i).writes());
        Trace.step("applyWrites (" + batches.get(i).writes().size() + " writes)", began);
      } catch (XrpcException e) {
        if (e.kind() == XrpcException.Kind.RATE_LIMITED) {
          String when =
              e.rateLimitReset().map(t -> "writes resume at " + t).orElse("try again later");
          for (int j = i; j < batches.size(); j++) {
            batches.get(j).refs().forEach(d -> errors.put(d.update().ref(), RATE_LIMITED + when));
          }
          break;
        }
        AfterRefusal.Verdict v =
            AfterRefusal.judge(
                client,
                reader,
                snap.address(),
                key,
                created == null ? null : created.key(),
                batches,
                i,
                now,
                e);
        if (v instanceof AfterRefusal.Verdict.Refused r) {
          LOG.debug("push refused: {}", r.errors());
          errors.putAll(r.errors());
          break;
        }
        if (v instanceof AfterRefusal.Verdict.Unexplained) {
          throw e;
        }
        LOG.debug("applyWrites failed ({}), but its writes are there", e.getMessage());
      }
      landed = true;
      if (i == 0 && created != null) {
        cache.putKey(snap.address(), created.key());
      }
    }
    Integer packCount = landed && counted != null ? countOrNull(counted) : null;
    return result(updates, errors, landed, packCount);
  }

  /**
   * A first push's repo record, with {@code main} as default branch if pushed, else the first
   * branch pushed. It is written in the push's first {@code applyWrites}, beside the pack and the
   * refs, so a push that fails before then leaves no empty repository behind.
   */
  private RepoRecord withRunners(RepoRecord r) throws IOException {
    return r.namingRunners(newRepoRunners.get());
  }

  private RepoRecord newRepo(Snapshot snap, List<RefDecision> accepted) {
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
    return RepoRecord.create(snap.address().name(), branch, clock.instant());
  }

  /**
   * Lists the repository's newest packs beside the first {@code applyWrites}, in its round trip,
   * when {@link #countingPacks} asked: the count a due compaction is decided by, so a push starts
   * no process just to count. The push's own pack counts whether or not the listing saw it.
   */
  private CompletableFuture<Integer> countPacks(RepoAddress repo, String key, PackRecord own) {
    if (countPacksUpTo <= 0) {
      return null;
    }
    int limit = Math.min(countPacksUpTo, RangeScanner.PAGE);
    return Threads.async(
        () -> {
          RecordPage page =
              client.listRecords(repo.did(), Lexicons.PACK, limit, Keys.scanStart(key), false);
          int n = 0;
          boolean sawOwn = false;
          for (var r : page.records()) {
            if (Keys.inRange(key, r.rkey())) {
              n++;
              sawOwn |= own != null && r.rkey().equals(own.rkey());
            }
          }
          if (n == RangeScanner.PAGE) {
            n += RangeScanner.PAGE; // as the compaction counts a further page
          }
          return n + (own != null && !sawOwn ? 1 : 0);
        });
  }

  private static Integer countOrNull(CompletableFuture<Integer> counted) {
    try {
      return RangeScanner.join(counted);
    } catch (IOException | RuntimeException e) {
      // The count only decides whether to compact; a push that landed is not failed by it.
      LOG.debug("could not count packs after the push: {}", e.getMessage());
      return null;
    }
  }

  /**
   * A self-contained pack of every object reachable from the tips and not from the bases, handed to
   * {@code place} as git writes it.
   */
  static PackRecord packObjects(
      Git local, Set<String> tips, List<String> bases, Git.Reader<PackRecord> place)
      throws IOException {
    StringBuilder in = new StringBuilder();
    tips.forEach(t -> in.append(t).append('\n'));
    bases.forEach(b -> in.append('^').append(b).append('\n'));
    return local.stream(
        in.toString().getBytes(StandardCharsets.UTF_8),
        place,
        "pack-objects",
        "--revs",
        "--stdout",
        "-q",
        "--delta-base-offset");
  }

  private static PushResult result(
      List<RefUpdate> updates, Map<String, String> errors, boolean landed) {
    return result(updates, errors, landed, null);
  }

  private static PushResult result(
      List<RefUpdate> updates, Map<String, String> errors, boolean landed, Integer packs) {
    List<PushResult.Outcome> out = new ArrayList<>();
    for (RefUpdate u : updates) {
      out.add(new PushResult.Outcome(u.ref(), errors.get(u.ref())));
    }
    return new PushResult(out, landed, packs);
  }
}
