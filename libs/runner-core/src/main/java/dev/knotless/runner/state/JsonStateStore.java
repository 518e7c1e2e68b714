package dev.knotless.runner.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state file ({@code --state}): all of the state in memory, and the whole file written again on
 * every update, to a temporary file beside it that is synced and then renamed over it, so the file
 * on disk is always one whole state. A file that cannot be read, or is corrupt, counts as empty,
 * and the reason is logged: every repository is then watched as if for the first time. Thread-safe:
 * one lock around every call.
 */
public final class JsonStateStore implements StateStore {

  private static final Logger LOG = LoggerFactory.getLogger(JsonStateStore.class);

  private final Path file;
  private Map<String, RepoState> repos;
  private RunnerState runner;

  /** Opens the state file, reading what it holds now. */
  public JsonStateStore(Path file) {
    this.file = file.toAbsolutePath();
    StateCodec.Snapshot s = readOrEmpty(this.file);
    this.repos = new LinkedHashMap<>(s.repos());
    this.runner = s.runner();
  }

  private static StateCodec.Snapshot readOrEmpty(Path file) {
    StateCodec.Snapshot empty = new StateCodec.Snapshot(Map.of(), RunnerState.empty());
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      LOG.info("state file {} does not exist yet: every repository is watched afresh", file);
      return empty;
    } catch (IOException e) {
      LOG.warn("state file {} cannot be read, so it counts as empty: {}", file, e.toString());
      return empty;
    }
    try {
      return StateCodec.read(bytes);
    } catch (StateCodec.CorruptStateException | IllegalArgumentException e) {
      LOG.warn("state file {} is corrupt, so it counts as empty: {}", file, e.getMessage());
      return empty;
    }
  }

  @Override
  public synchronized Optional<RepoState> load(String repo) {
    return Optional.ofNullable(repos.get(repo));
  }

  @Override
  public synchronized RepoState update(String repo, UnaryOperator<RepoState> change) {
    RepoState now = repos.get(repo);
    RepoState next = change.apply(now != null ? now : RepoState.empty());
    if (next == null) {
      throw new IllegalArgumentException("a state change for " + repo + " returned nothing");
    }
    if (next.equals(now)) {
      // Stored already: a change that changes nothing costs no write (and no sync of the disk).
      return now;
    }
    Map<String, RepoState> changed = new LinkedHashMap<>(repos);
    changed.put(repo, next);
    store(changed, runner);
    repos = changed;
    return next;
  }

  @Override
  public synchronized void remove(String repo) {
    if (!repos.containsKey(repo)) {
      return;
    }
    Map<String, RepoState> changed = new LinkedHashMap<>(repos);
    changed.remove(repo);
    store(changed, runner);
    repos = changed;
  }

  @Override
  public synchronized Set<String> repositories() {
    return Set.copyOf(new TreeSet<>(repos.keySet()));
  }

  @Override
  public synchronized RunnerState runner() {
    return runner;
  }

  @Override
  public synchronized RunnerState updateRunner(UnaryOperator<RunnerState> change) {
    RunnerState next = change.apply(runner);
    if (next == null) {
      throw new IllegalArgumentException("a change of the runner's state returned nothing");
    }
    store(repos, next);
    runner = next;
    return next;
  }

  /** Writes the whole state beside the file, syncs it, and renames it over the file. */
  private void store(Map<String, RepoState> repos, RunnerState runner) {
    byte[] bytes = StateCodec.write(new StateCodec.Snapshot(repos, runner));
    Path dir = file.getParent();
    Path temp = null;
    try {
      Files.createDirectories(dir);
      temp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the file system cannot rename " + temp + " over it atomically", e);
      }
      temp = null;
    } catch (IOException e) {
      throw new StateStoreException("state file " + file + " could not be written: " + e, e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException e) {
          LOG.warn("temporary state file {} could not be removed: {}", temp, e.toString());
        }
      }
    }
  }
}
