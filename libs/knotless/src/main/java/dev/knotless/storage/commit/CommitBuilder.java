package dev.knotless.storage.commit;

import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefNames;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.storage.push.RefspecCheck;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits puts and deletes to a branch with no working copy: each attempt reads the snapshot, syncs
 * the mirror, builds the tree from the parent's with a temporary index, and pushes. A lost race
 * replays the same changes on the new tip, up to {@code retries} more times. Thread-safe;
 * concurrent commits share the mirror through its locks.
 */
public final class CommitBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(CommitBuilder.class);
  private final SnapshotReader reader;
  private final Fetcher fetcher;
  private final Pusher pusher;
  private final StorageCache cache;
  private final RandomGenerator random;
  private final Sleeper sleeper;
  private volatile Listener listener = (attempt, commit) -> {};

  /** Told about each attempt just before it pushes, e.g. to report progress. */
  @FunctionalInterface
  public interface Listener {
    void beforePush(int attempt, String commit) throws IOException;
  }

  /** Sets who hears about attempts; by default no one. */
  public CommitBuilder listener(Listener l) {
    this.listener = l;
    return this;
  }

  /** Waits between attempts; tests may count instead of sleeping. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  public CommitBuilder(
      SnapshotReader reader,
      Fetcher fetcher,
      Pusher pusher,
      StorageCache cache,
      RandomGenerator random,
      Sleeper sleeper) {
    this.reader = reader;
    this.fetcher = fetcher;
    this.pusher = pusher;
    this.cache = cache;
    this.random = random;
    this.sleeper = sleeper;
  }

  /** Who a commit is by; the committer is the author. */
  public record Author(String name, String email) {}

  /**
   * What to commit.
   *
   * @param base when set, a change fails "conflict" if a path it touches changed since this commit
   * @param retries replays after the first attempt ({@link Retries#DEFAULT_RETRIES} by default)
   */
  public record Request(
      RepoAddress repo,
      String branch,
      List<Change> changes,
      String message,
      String base,
      Author author,
      int retries) {
    public Request {
      changes = List.copyOf(changes);
      RefNames.validate("refs/heads/" + branch);
      if (changes.isEmpty()) {
        throw new IllegalArgumentException("a commit needs at least one put or delete");
      }
      if (message == null || message.isBlank()) {
        throw new IllegalArgumentException("a commit needs a message");
      }
    }
  }

  /** The commit that landed (empty when the tree equalled the parent's), and attempts made. */
  public record Result(Optional<String> commit, int attempts) {}

  public Result commit(Request req) throws IOException {
    String ref = "refs/heads/" + req.branch();
    for (int attempt = 0; ; attempt++) {
      Snapshot snap = reader.read(req.repo(), SnapshotReader.Packs.NEWEST);
      if (!snap.exists()) {
        throw new IOException("no repository at " + req.repo().url());
      }
      Mirror mirror = Mirror.open(cache.dir(), snap.address().did(), snap.repo().key());
      mirror.sync(snap, fetcher);
      Git git = mirror.git();
      String parent = parent(snap, ref, req);
      if (req.base() != null && parent != null) {
        checkConflicts(git, req, parent);
      }
      String commit = build(git, parent, req);
      if (commit == null) {
        return new Result(Optional.empty(), attempt + 1);
      }
      listener.beforePush(attempt, commit);
      PushResult r = pusher.push(snap, git, List.of(new RefUpdate(ref, commit, true)));
      PushResult.Outcome o = r.outcomes().get(0);
      if (o.ok()) {
        return new Result(Optional.of(commit), attempt + 1);
      }
      if (!RefspecCheck.FETCH_FIRST.equals(o.error()) || attempt >= req.retries()) {
        throw new IOException("commit to " + req.branch() + " not pushed: " + o.error());
      }
      Duration pause = Retries.pause(attempt + 1, random);
      LOG.debug("{} moved under the commit; replaying after {}", req.branch(), pause);
      try {
        sleeper.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting to replay a commit", e);
      }
    }
  }

  /** The branch's tip, or for a new branch the given base or the default branch's tip. */
  private static String parent(Snapshot snap, String ref, Request req) throws IOException {
    RefRecord tip = snap.liveRefs().get(ref);
    if (tip != null) {
      return tip.target();
    }
    if (req.base() != null) {
      return req.base();
    }
    Optional<String> head = snap.headRef();
    return head.map(h -> snap.liveRefs().get(h).target()).orElse(null);
  }

  private static void checkConflicts(Git git, Request req, String tip) throws IOException {
    if (!git.has(req.base())) {
      throw new IOException("base " + req.base() + " is not in the repository");
    }
    String changed = git.text("diff", "--name-only", "--no-renames", "-z", req.base(), tip);
    Set<String> paths = new HashSet<>(List.of(changed.split("\0")));
    for (Change c : req.changes()) {
      if (paths.contains(c.path())) {
        throw new IOException("conflict: " + c.path() + " changed since " + req.base());
      }
    }
  }

  /** Writes the tree and commit in the mirror; null when the tree equals the parent's. */
  private static String build(Git mirror, String parent, Request req) throws IOException {
    Path index = Files.createTempFile("knotless-index", "");
    Files.delete(index);
    try {
      Git git = mirror.withEnv("GIT_INDEX_FILE", index.toString());
      if (parent != null) {
        git.run(null, "read-tree", parent);
      } else {
        git.run(null, "read-tree", "--empty");
      }
      StringBuilder info = new StringBuilder();
      for (Change c : req.changes()) {
        if (c instanceof Change.Put p) {
          String blob =
              new String(
                      git.run(p.content(), "hash-object", "-w", "--stdin"), StandardCharsets.UTF_8)
                  .strip();
          info.append(p.mode()).append(' ').append(blob).append('\t').append(p.path()).append('\n');
        } else {
          info.append("0 ").append("0".repeat(40)).append('\t').append(c.path()).append('\n');
        }
      }
      git.run(info.toString().getBytes(StandardCharsets.UTF_8), "update-index", "--index-info");
      String tree = git.text("write-tree");
      if (parent != null && tree.equals(git.text("rev-parse", parent + "^{tree}"))) {
        return null;
      }
      List<String> args = new ArrayList<>(List.of("commit-tree", tree, "-F", "-"));
      if (parent != null) {
        args.add("-p");
        args.add(parent);
      }
      Git author =
          git.withEnv("GIT_AUTHOR_NAME", req.author().name())
              .withEnv("GIT_AUTHOR_EMAIL", req.author().email())
              .withEnv("GIT_COMMITTER_NAME", req.author().name())
              .withEnv("GIT_COMMITTER_EMAIL", req.author().email());
      return new String(
              author.run(req.message().getBytes(StandardCharsets.UTF_8), args),
              StandardCharsets.UTF_8)
          .strip();
    } finally {
      Files.deleteIfExists(index);
    }
  }
}
