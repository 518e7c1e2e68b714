package dev.knotless.storage.mirror;

import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bare local copy of one repository at {@code <cache>/mirrors/<did, : as _>/<key>.git}, kept in
 * step with the records. Fetches into it take turns under an OS lock on a file inside it; the ref
 * transaction runs under an OS lock on a file beside it; a repack past {@value #MAX_PACKS} packs
 * runs under a lock of its own that a second repack skips. The OS releases every lock when its
 * process ends. Safe to share between threads and processes.
 */
public final class Mirror {
  /** A sync that leaves more packs than this repacks them into one. */
  public static final int MAX_PACKS = 50;

  private static final Logger LOG = LoggerFactory.getLogger(Mirror.class);
  private final Path dir;
  private final Git git;

  private Mirror(Path dir) {
    this.dir = dir;
    this.git = Git.at(dir);
  }

  /** Where the mirror of repository {@code key} of {@code did} lives under {@code cacheDir}. */
  public static Path location(Path cacheDir, String did, String key) {
    return cacheDir.resolve("mirrors").resolve(did.replace(':', '_')).resolve(key + ".git");
  }

  /**
   * Opens the mirror, creating it under a temporary name and renaming it into place, so racing
   * processes end up with the same one.
   */
  public static Mirror open(Path cacheDir, String did, String key) throws IOException {
    Path dir = location(cacheDir, did, key);
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir.getParent());
      Path tmp = dir.resolveSibling(".tmp-" + key + "-" + UUID.randomUUID());
      Git.at(tmp).run(null, "init", "--quiet", "--bare", tmp.toString());
      Git.at(tmp).run(null, "config", "gc.auto", "0");
      try {
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (java.nio.file.FileSystemException e) {
        // Another process won the race; use its mirror.
        deleteTree(tmp);
        if (!Files.isDirectory(dir)) {
          throw e;
        }
      }
    }
    return new Mirror(dir);
  }

  /** Ends the git processes a sync started ahead ({@link Git#prestart}) that nothing used. */
  public static void endPrestarted(Path cacheDir, String did, String key) {
    Git.at(location(cacheDir, did, key)).endPrestarted();
  }

  public Path dir() {
    return dir;
  }

  public Git git() {
    return git;
  }

  /**
   * Fetches what the snapshot's live refs need, then sets the mirror's refs exactly to the
   * snapshot's in one transaction, writes the commit-graph if refs moved or it is missing, and
   * repacks past {@value #MAX_PACKS} packs.
   */
  public void sync(Snapshot snap, Fetcher fetcher) throws IOException {
    tidy(syncRefs(snap, fetcher));
  }

  /**
   * What {@link #syncRefs} did: the refs as they were before its transaction, and whether it moved
   * any.
   */
  public record Synced(Map<String, String> before, boolean moved, boolean empty) {}

  /**
   * The first half of {@link #sync}: fetches what the snapshot's live refs need and sets the
   * mirror's refs to the snapshot's, leaving the commit-graph and the repack to {@link #tidy}, so a
   * caller in a hurry (a pass filing checks) can do them after what it is in a hurry for.
   */
  public Synced syncRefs(Snapshot snap, Fetcher fetcher) throws IOException {
    Map<String, RefRecord> live = snap.liveRefs();
    return finish(snap, live, fetchBegun(snap, live, refsNow(), fetcher));
  }

  /** The refs now, read from their files under the refs lock. */
  private Map<String, String> refsNow() throws IOException {
    try (Locks.Held held = Locks.hold(refsLock(), true)) {
      return Map.copyOf(RefFiles.read(git));
    }
  }

  /**
   * The first part of the fetch, taking turns with other fetches; the refs' targets are the objects
   * whose history is known whole.
   */
  private Fetcher.Pending fetchBegun(
      Snapshot snap, Map<String, RefRecord> live, Map<String, String> refs, Fetcher fetcher)
      throws IOException {
    try (Locks.Held held = Locks.hold(dir.resolve("knotless-fetch.lock"), true)) {
      return fetcher.begin(
          snap,
          git,
          live.values().stream().map(RefRecord::target).toList(),
          java.util.Set.copyOf(refs.values()));
    }
  }

  /**
   * A {@link #syncRefs} begun: the snapshot's newest packs are indexed, so the pushed commits can
   * be read, while the check that their history is whole, and then the ref transaction, run on
   * another thread. What was fetched may be read but not trusted until {@link #await} returned: a
   * pack whose history has a hole fails there, and no ref is set to it.
   */
  public static final class Syncing {
    private final Map<String, String> before;
    private final CompletableFuture<Void> checked;
    private final CompletableFuture<Synced> rest;

    private Syncing(
        Map<String, String> before,
        CompletableFuture<Void> checked,
        CompletableFuture<Synced> rest) {
      this.before = before;
      this.checked = checked;
      this.rest = rest;
    }

    /** The mirror's refs as they were when the sync began, read from their files. */
    public Map<String, String> before() {
      return before;
    }

    /**
     * Waits for the check that the history is whole (and any fetch it needed); throws as {@link
     * #syncRefs} would. The refs may still be being set. Idempotent.
     */
    public void awaitChecked() throws IOException {
      RangeScanner.join(checked);
    }

    /**
     * Waits for the history check and the ref transaction; throws as {@link #syncRefs} would.
     * Idempotent.
     */
    public Synced await() throws IOException {
      return RangeScanner.join(rest);
    }
  }

  /**
   * {@link #syncRefs}, returning once the newest packs are indexed; the history check and then the
   * ref transaction go on beside the caller, on another thread.
   */
  public Syncing begin(Snapshot snap, Fetcher fetcher) throws IOException {
    Map<String, RefRecord> live = snap.liveRefs();
    Map<String, String> before = refsNow();
    Fetcher.Pending pending = fetchBegun(snap, live, before, fetcher);
    // Shown whole already (a push's small pack), the check is done; else git's runs beside.
    CompletableFuture<Void> checked =
        pending.finished()
            ? CompletableFuture.completedFuture(null)
            : Threads.async(
                () -> {
                  check(pending);
                  return null;
                });
    CompletableFuture<Synced> rest =
        checked.thenApplyAsync(
            v -> {
              try {
                return refsSet(snap, live);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            Threads.IO);
    return new Syncing(before, checked, rest);
  }

  /** Checks the history and fetches the rest (taking turns with other fetches), then sets refs. */
  private Synced finish(Snapshot snap, Map<String, RefRecord> live, Fetcher.Pending pending)
      throws IOException {
    check(pending);
    return refsSet(snap, live);
  }

  /**
   * Checks that the history is whole, fetching what is missing, taking turns with other fetches.
   */
  private void check(Fetcher.Pending pending) throws IOException {
    try (Locks.Held held = Locks.hold(dir.resolve("knotless-fetch.lock"), true)) {
      pending.finish();
    }
  }

  private Synced refsSet(Snapshot snap, Map<String, RefRecord> live) throws IOException {
    Map<String, String> before = new java.util.HashMap<>();
    long t = Trace.start();
    boolean moved = setRefs(snap, live, before);
    Trace.step("refs set", t);
    return new Synced(Map.copyOf(before), moved, live.isEmpty());
  }

  private Path refsLock() {
    return dir.resolveSibling(dir.getFileName() + ".refs.lock");
  }

  /**
   * The second half of {@link #sync}: writes the commit-graph if {@code synced} moved a ref or it
   * is missing, and repacks past {@value #MAX_PACKS} packs.
   */
  public void tidy(Synced synced) throws IOException {
    if (synced.moved()
        || !Files.exists(dir.resolve("objects/info/commit-graphs/commit-graph-chain"))) {
      if (!synced.empty()) {
        // Two syncs of one mirror may tidy at once; git's own lock on the chain would fail one.
        try (Locks.Held held = Locks.hold(dir.resolve("knotless-graph.lock"), true)) {
          git.run(null, "commit-graph", "write", "--reachable", "--split");
        }
      }
    }
    repackIfNeeded();
  }

  /**
   * Fetches what {@code wanted} reaches into the mirror, taking turns with other fetches, without
   * touching its refs (as compaction does for the bases of young packs).
   */
  public void fetch(Snapshot snap, Fetcher fetcher, java.util.Collection<String> wanted)
      throws IOException {
    try (Locks.Held held = Locks.hold(dir.resolve("knotless-fetch.lock"), true)) {
      fetcher.fetch(snap, git, wanted);
    }
  }

  /**
   * The ref transaction, under the lock beside the mirror; true when a ref changed. {@code before}
   * gets the refs as they were.
   */
  private boolean setRefs(Snapshot snap, Map<String, RefRecord> live, Map<String, String> before)
      throws IOException {
    try (Locks.Held held = Locks.hold(refsLock(), true)) {
      removeStaleRefLocks();
      Map<String, String> have = RefFiles.read(git);
      before.putAll(have);
      StringBuilder tx = new StringBuilder("start\n");
      boolean deletes = false;
      for (Map.Entry<String, String> e : have.entrySet()) {
        if (!live.containsKey(e.getKey())) {
          tx.append("delete ").append(e.getKey()).append('\n');
          deletes = true;
        }
      }
      Map<String, String> updates = new java.util.TreeMap<>();
      for (RefRecord r : live.values()) {
        if (!r.target().equals(have.get(r.name()))) {
          tx.append("update ").append(r.name()).append(' ').append(r.target()).append('\n');
          updates.put(r.name(), r.target());
        }
      }
      tx.append("prepare\ncommit\n");
      boolean changed = deletes || !updates.isEmpty();
      // A push moving a ref, the usual change, is written here; deletes and the rest go to git.
      if (changed && (deletes || !RefFiles.write(git, updates, have))) {
        git.run(tx.toString().getBytes(StandardCharsets.UTF_8), "update-ref", "--stdin");
      }
      snap.headRef()
          .filter(head -> !head.equals(symbolicHead()))
          .ifPresent(
              head -> {
                try {
                  git.run(null, "symbolic-ref", "HEAD", head);
                } catch (IOException e) {
                  LOG.debug("could not point the mirror's HEAD at {}: {}", head, e.getMessage());
                }
              });
      return changed;
    }
  }

  /** The ref HEAD names, read from its file (no git started); null when it names none. */
  private String symbolicHead() {
    try {
      String text = Files.readString(dir.resolve("HEAD"), StandardCharsets.UTF_8).strip();
      return text.startsWith("ref: ") ? text.substring("ref: ".length()).strip() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * A git killed part way can leave a lock file on a ref, refusing every later update. We hold the
   * lock on the refs, so no other git is at them.
   */
  private void removeStaleRefLocks() throws IOException {
    Path refs = dir.resolve("refs");
    if (!Files.isDirectory(refs)) {
      return;
    }
    try (Stream<Path> s = Files.walk(refs)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".lock")).toList()) {
        Files.deleteIfExists(p);
      }
    }
    Files.deleteIfExists(dir.resolve("packed-refs.lock"));
  }

  private void repackIfNeeded() throws IOException {
    Path packDir = dir.resolve("objects/pack");
    long packs;
    try (Stream<Path> s = Files.list(packDir)) {
      packs = s.filter(p -> p.toString().endsWith(".pack")).count();
    }
    if (packs <= MAX_PACKS) {
      return;
    }
    try (Locks.Held held = Locks.hold(dir.resolve("knotless-repack.lock"), false)) {
      if (held == null) {
        return;
      }
      // Keep objects no ref reaches: a fetch in progress may still need them.
      git.run(null, "repack", "-a", "-d", "-q", "--keep-unreachable");
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public String toString() {
    return "Mirror(" + dir + ")";
  }
}
