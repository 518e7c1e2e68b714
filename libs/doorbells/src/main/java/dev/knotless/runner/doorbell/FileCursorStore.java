package dev.knotless.runner.doorbell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cursor kept in a file as a decimal number, written at most every {@link #EVERY} and at {@link
 * #flush}, each time to a temporary file moved over the old one, so a crash leaves the old cursor
 * or the new one, never half of one. A file that cannot be read or written is logged and treated as
 * no cursor: the source then reads from now, which only costs what the sweep recovers anyway.
 * Thread-safe.
 */
public final class FileCursorStore implements CursorStore {
  /** How often a moving cursor is written. */
  public static final Duration EVERY = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(FileCursorStore.class);

  private final Path file;
  private final Clock clock;
  private long latest = -1;
  private long written = -1;
  private Instant lastWrite = Instant.EPOCH;

  public FileCursorStore(Path file, Clock clock) {
    this.file = file.toAbsolutePath();
    this.clock = clock;
  }

  @Override
  public synchronized OptionalLong load() {
    if (!Files.exists(file)) {
      return OptionalLong.empty();
    }
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      long cursor = Long.parseLong(text);
      if (cursor <= 0) {
        throw new NumberFormatException("not positive: " + text);
      }
      return OptionalLong.of(cursor);
    } catch (IOException | NumberFormatException e) {
      LOG.warn("the cursor file {} is not usable, reading from now: {}", file, e.getMessage());
      return OptionalLong.empty();
    }
  }

  @Override
  public synchronized void seen(long cursor) {
    latest = Math.max(latest, cursor);
    Instant now = clock.instant();
    if (Duration.between(lastWrite, now).compareTo(EVERY) >= 0) {
      write();
      lastWrite = now;
    }
  }

  @Override
  public synchronized void flush() {
    write();
  }

  private void write() {
    if (latest <= 0 || latest == written) {
      return;
    }
    try {
      Path dir = file.getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
      Files.writeString(tmp, latest + "\n", StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      written = latest;
    } catch (IOException e) {
      LOG.warn("the cursor could not be kept in {}: {}", file, e.getMessage());
    }
  }
}
