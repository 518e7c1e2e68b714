package dev.knotless.storage.fetch;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.git.LooseObjects;
import dev.knotless.storage.pack.PackStore;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the objects a set of commits needs into a local repository. It looks in the snapshot's
 * newest packs, then the packs the refs name, then walks the pack pages newest first; a walk that
 * runs out, or a pack that vanished under it, walks once more taking every pack not yet indexed. Up
 * to eight packs download and index at once. Thread-safe; each call is independent, but two calls
 * into one local repository should take turns (the mirror's lock does that).
 */
public final class Fetcher {
  /** Packs downloaded and indexed at once. */
  public static final int PACKS_AT_ONCE = 8;

  private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);
  private final RecordStore client;
  private final PackStore store;

  public Fetcher(RecordStore client, StorageCache cache, Clock clock) {
    this.client = client;
    this.store = new PackStore(client, cache, clock);
  }

  /** What a fetch did: the packs it indexed. */
  public record Stats(int packsIndexed) {}

  /** A pack download failed part way (the pack or a blob of it vanished). */
  private static final class Vanished extends Exception {
    Vanished(IOException cause) {
      super(cause);
    }
  }

  /**
   * Makes every object {@code wanted} reaches present locally.
   *
   * @throws IOException "the remote has no pack holding <sha>" when the packs run out
   */
  public Stats fetch(Snapshot snap, Git local, Collection<String> wanted) throws IOException {
    // What is wanted and already here is taken as it is; nothing is known whole to show more by.
    return begin(snap, local, wanted, wanted, Set.of()).finish();
  }

  /**
   * A fetch part done: the snapshot's newest packs that hold a missing tip are indexed, and {@link
   * #finish} is left to check that the history is whole and to fetch what is still missing, so a
   * caller can read the pushed commit while that check runs. Nothing fetched may be trusted (no ref
   * set to it, nothing run from it) before {@link #finish} returned.
   */
  public final class Pending {
    private final State state;
    private final Stats done;

    private Pending(State state, Stats done) {
      this.state = state;
      this.done = done;
    }

    /**
     * Checks that the history of everything wanted is whole, fetching what is still missing.
     *
     * @throws IOException "the remote has no pack holding <sha>" when the packs run out
     */
    public Stats finish() throws IOException {
      return done != null ? done : rest(state);
    }

    /** Whether {@link #finish} has nothing left to do: the history is already known whole. */
    public boolean finished() {
      return done != null;
    }
  }

  /**
   * The first part of {@link #fetch}: asks which wanted objects are missing and indexes the newest
   * packs holding them; {@link Pending#finish} does the rest. {@code whole} are objects whose
   * history is known to be whole here (a mirror's ref targets): a wanted object that is present but
   * not among them still has its history checked, since a pack indexed by a sync that then failed
   * its check leaves it present with a hole behind it.
   */
  public Pending begin(
      Snapshot snap, Git local, Collection<String> wanted, Collection<String> whole)
      throws IOException {
    return begin(snap, local, wanted, whole, whole);
  }

  /**
   * {@link #begin}, where a wanted object among {@code present} that is here needs nothing more,
   * and {@code whole} (targets of refs only) are what a pack's history may be shown whole by.
   */
  private Pending begin(
      Snapshot snap,
      Git local,
      Collection<String> wanted,
      Collection<String> present,
      Collection<String> whole)
      throws IOException {
    State s = new State(snap, local, new LinkedHashSet<>(wanted), Set.copyOf(whole));
    long t = Trace.start();
    // One question to git: which wanted objects, and which newest packs' tips, are not here.
    Set<String> tips = new HashSet<>();
    snap.newestPacks().forEach(p -> tips.addAll(p.tips()));
    Set<String> asked = new HashSet<>(s.wanted);
    asked.addAll(tips);
    Set<String> absent = asked.isEmpty() ? Set.of() : local.missing(asked);
    Set<String> missingWanted = new HashSet<>(absent);
    missingWanted.retainAll(s.wanted);
    s.missingNow = java.util.Collections.unmodifiableSet(missingWanted);
    if (!snap.exists() || (s.missing().isEmpty() && present.containsAll(s.wanted))) {
      return new Pending(s, new Stats(0));
    }
    if (s.missing().isEmpty()) {
      return new Pending(s, null);
    }
    Trace.step("missing check", t);
    // 1. The newest packs the snapshot read, at no further round trip when inline.
    try {
      s.index(
          snap.newestPacks().stream()
              .filter(p -> p.tips().stream().anyMatch(absent::contains))
              .toList());
    } catch (Vanished v) {
      LOG.debug("a newest pack vanished; the walk will find its replacement");
      return new Pending(s, null);
    }
    // A push's small pack, written here, is usually shown whole at once, with no git to wait for.
    if (s.shownWhole()) {
      Trace.step("history shown whole", t);
      return new Pending(s, new Stats(s.indexed.size()));
    }
    return new Pending(s, null);
  }

  /** The rest of a fetch once the newest packs are indexed. */
  private Stats rest(State s) throws IOException {
    Snapshot snap = s.snap;
    Git local = s.local;
    long t = Trace.start();
    boolean done = s.done();
    Trace.step("history check", t);
    if (done) {
      return new Stats(s.indexed.size());
    }
    // 2. The packs the refs name, all at once, until no missing target names an unread pack.
    byName(s);
    if (s.done()) {
      return new Stats(s.indexed.size());
    }
    // 3. The pack pages, newest first, continuing where the newest packs ended.
    boolean clean = true;
    if (!(snap.packsExhausted() && !snap.newestPacks().isEmpty())) {
      String start =
          snap.newestPacks().isEmpty()
              ? Keys.scanStart(snap.repo().key())
              : snap.newestPacks().get(snap.newestPacks().size() - 1).rkey();
      try {
        clean = walk(s, start, false);
      } catch (Vanished v) {
        clean = false;
      }
    }
    if (!clean || !s.done()) {
      // The one restart: from the newest page, every pack not yet indexed.
      try {
        walk(s, Keys.scanStart(snap.repo().key()), true);
      } catch (Vanished v) {
        throw (IOException) v.getCause();
      }
    }
    Set<String> still = s.missing();
    if (!still.isEmpty()) {
      throw new IOException("the remote has no pack holding " + still.iterator().next());
    }
    var hole = local.firstMissingReachable(s.wanted);
    if (hole.isPresent()) {
      throw new IOException("the remote has no pack holding " + hole.get());
    }
    return new Stats(s.indexed.size());
  }

  private void byName(State s) throws IOException {
    Set<String> asked = new HashSet<>();
    while (true) {
      Set<String> missing = s.missing();
      Set<String> keys = new LinkedHashSet<>();
      for (RefRecord r : s.snap.refs()) {
        if (r.live() && missing.contains(r.target()) && r.pack() != null) {
          if (!s.indexed.contains(r.pack()) && asked.add(r.pack())) {
            keys.add(r.pack());
          }
        }
      }
      if (keys.isEmpty()) {
        return;
      }
      List<CompletableFuture<Record>> reads = new ArrayList<>();
      for (String key : keys) {
        reads.add(
            Threads.async(
                () -> client.findRecord(s.snap.address().did(), Lexicons.PACK, key).orElse(null)));
      }
      List<PackRecord> found = new ArrayList<>();
      for (CompletableFuture<Record> f : reads) {
        Record r = RangeScanner.join(f);
        if (r != null) {
          found.add(PackRecord.parse(r.uri(), r.rkey(), r.value()));
        }
      }
      try {
        s.index(found);
      } catch (Vanished v) {
        LOG.debug("a named pack vanished; the walk will find its replacement");
      }
    }
  }

  /** Walks pack pages from {@code cursor}; false when a pack vanished under it. */
  private boolean walk(State s, String cursor, boolean everything) throws IOException, Vanished {
    String key = s.snap.repo().key();
    while (true) {
      RecordPage page =
          client.listRecords(
              s.snap.address().did(), Lexicons.PACK, RangeScanner.PAGE, cursor, false);
      List<PackRecord> packs = new ArrayList<>();
      boolean end = page.records().size() < RangeScanner.PAGE;
      for (Record r : page.records()) {
        if (!Keys.inRange(key, r.rkey())) {
          end = true;
          break;
        }
        packs.add(PackRecord.parse(r.uri(), r.rkey(), r.value()));
      }
      List<PackRecord> take =
          everything
              ? packs.stream().filter(p -> !s.indexed.contains(p.rkey())).toList()
              : withMissingTip(s.local, packs, s.indexed);
      s.index(take);
      if (end || (everything ? s.done() : s.missing().isEmpty())) {
        return true;
      }
      cursor = page.records().get(page.records().size() - 1).rkey();
    }
  }

  private static List<PackRecord> withMissingTip(
      Git local, List<PackRecord> packs, Set<String> indexed) throws IOException {
    Set<String> tips = new HashSet<>();
    packs.forEach(p -> tips.addAll(p.tips()));
    Set<String> missing = local.missing(tips);
    return packs.stream()
        .filter(p -> !indexed.contains(p.rkey()))
        .filter(p -> p.tips().stream().anyMatch(missing::contains))
        .toList();
  }

  /** One fetch's progress: what it wants and which packs it has indexed. */
  private final class State {
    final Snapshot snap;
    final Git local;
    final Set<String> wanted;
    final Set<String> indexed = new HashSet<>();

    /** Objects whose history is known whole here: the local refs' targets. */
    final Set<String> whole;

    /** What the packs indexed brought, to show their history whole by. */
    final Brought brought = new Brought();

    /** What {@link #missing} last found; null once packs were indexed since. */
    private Set<String> missingNow;

    State(Snapshot snap, Git local, Set<String> wanted, Set<String> whole) {
      this.snap = snap;
      this.local = local;
      this.wanted = wanted;
      this.whole = whole;
    }

    /** The wanted objects not here; asked of git again only after packs were indexed. */
    Set<String> missing() throws IOException {
      if (missingNow == null) {
        missingNow = java.util.Collections.unmodifiableSet(local.missing(wanted));
      }
      return missingNow;
    }

    /**
     * Nothing wanted is missing and neither is anything it reaches: a present tip says only that
     * some pack brought that commit, not its history.
     */
    boolean done() throws IOException {
      if (missingNow != null && !missingNow.isEmpty()) {
        return false;
      }
      // The common push, a small pack written here: shown whole without starting git.
      if (shownWhole()) {
        return true;
      }
      // A wanted object still missing is a hole too: the walk starts from it.
      var hole = local.firstMissingReachable(wanted);
      hole.ifPresent(sha -> LOG.debug("history incomplete: {} is missing", sha));
      return hole.isEmpty();
    }

    /** Whether the packs indexed show the history of everything wanted whole, without git. */
    boolean shownWhole() {
      return brought.shownWhole(local, wanted, whole);
    }

    /** Downloads and indexes packs, eight at a time; their bases join the wanted set. */
    void index(List<PackRecord> packs) throws IOException, Vanished {
      if (packs.isEmpty()) {
        return;
      }
      missingNow = null;
      Semaphore slots = new Semaphore(PACKS_AT_ONCE);
      // One pack (a push's) goes in on this thread: handing it to the pool costs more than it
      // saves.
      java.util.concurrent.Executor on = packs.size() == 1 ? Runnable::run : Threads.IO;
      List<CompletableFuture<Object>> jobs = new ArrayList<>();
      for (PackRecord p : packs) {
        jobs.add(
            Threads.async(
                () -> {
                  slots.acquireUninterruptibly();
                  try {
                    long t = Trace.start();
                    if (p.inline() && p.data().length == p.size()) {
                      var written = LooseObjects.write(local, p.data());
                      if (written.isPresent()) {
                        brought.written(written.get());
                        Trace.step("pack written as loose objects (" + p.size() + " bytes)", t);
                        return null;
                      }
                    }
                    if (brought.indexedByGit()) {
                      // The history check will want rev-list: it starts while the pack goes in.
                      local.prestart(Git.Ahead.HISTORY);
                    }
                    // The pack streams into index-pack as it downloads, part by part.
                    local.pipe(
                        in -> store.readInto(snap.address().did(), p, in),
                        "index-pack",
                        "--stdin",
                        "--fix-thin");
                    Trace.step("pack downloaded and indexed (" + p.size() + " bytes)", t);
                    return null;
                  } finally {
                    slots.release();
                  }
                },
                on));
      }
      IOException vanished = null;
      for (int i = 0; i < jobs.size(); i++) {
        try {
          RangeScanner.join(jobs.get(i));
          indexed.add(packs.get(i).rkey());
          wanted.addAll(packs.get(i).bases());
        } catch (XrpcException e) {
          if (e.status() == 400 || e.status() == 404) {
            vanished = e;
          } else {
            throw e;
          }
        }
      }
      if (vanished != null) {
        throw new Vanished(vanished);
      }
    }
  }
}
