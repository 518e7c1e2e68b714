package dev.knotless.run.checkwriter.adapter.files;

import dev.knotless.atproto.RecordKeys;
import dev.knotless.run.checkwriter.domain.LogTail;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Each running check's state on disk, so a consumer that restarts loses nothing the broker already
 * let it commit: {@code <key>.log} holds the log bytes by offset, {@code <key>.events} the other
 * events as JSON lines, {@code <key>.done} marks a check filed as ended. Every write is forced to
 * disk before it returns, since the Kafka offset is committed once it has.
 */
public final class CheckFiles {
  private final Path dir;

  public CheckFiles(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  /** Whether the check was already filed as ended. */
  public boolean done(String key) {
    return Files.exists(file(key, ".done"));
  }

  /**
   * Marks the check filed as ended and lets its log and events go. The mark keeps the run's filed
   * event, so a later run filing the same check (a rerun) can be told from a redelivery.
   */
  public void markDone(RunEvent.Filed filed) throws IOException {
    String key = filed.checkKey();
    write(file(key, ".done"), RunEventJson.encode(filed).getBytes(StandardCharsets.UTF_8), false);
    Files.deleteIfExists(file(key, ".log"));
    Files.deleteIfExists(file(key, ".events"));
  }

  /**
   * Whether {@code filed} begins a new run of a check this writer has seen: a rerun at the same
   * commit, or a run started again after its worker died. A redelivered filed event is not one.
   */
  public boolean newRun(RunEvent.Filed filed) throws IOException {
    String json = RunEventJson.encode(filed);
    Path done = file(filed.checkKey(), ".done");
    if (Files.exists(done)) {
      return !Files.readString(done, StandardCharsets.UTF_8).equals(json);
    }
    Path events = file(filed.checkKey(), ".events");
    if (!Files.exists(events)) {
      return false;
    }
    for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
      if (!line.isBlank() && RunEventJson.decode(line) instanceof RunEvent.Filed) {
        if (line.equals(json)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Forgets everything kept of a check, for a new run of it. */
  public void forget(String key) throws IOException {
    Files.deleteIfExists(file(key, ".done"));
    Files.deleteIfExists(file(key, ".log"));
    Files.deleteIfExists(file(key, ".events"));
  }

  /** The events (other than output) applied so far, in order. */
  public List<RunEvent> events(String key) throws IOException {
    Path p = file(key, ".events");
    List<RunEvent> out = new ArrayList<>();
    if (Files.exists(p)) {
      for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          out.add(RunEventJson.decode(line));
        }
      }
    }
    return out;
  }

  /**
   * Appends an event unless the very same event is there already (a redelivery).
   *
   * @return whether it was new
   */
  public boolean addEvent(RunEvent event) throws IOException {
    String json = RunEventJson.encode(event);
    Path p = file(event.checkKey(), ".events");
    if (Files.exists(p) && Files.readAllLines(p, StandardCharsets.UTF_8).contains(json)) {
      return false;
    }
    write(p, (json + "\n").getBytes(StandardCharsets.UTF_8), true);
    return true;
  }

  /** The log's length in bytes so far. */
  public long logLength(String key) throws IOException {
    Path p = file(key, ".log");
    return Files.exists(p) ? Files.size(p) : 0;
  }

  /** The log so far. */
  public byte[] log(String key) throws IOException {
    Path p = file(key, ".log");
    return Files.exists(p) ? Files.readAllBytes(p) : new byte[0];
  }

  /** Appends what of {@code data} at {@code offset} extends the log; says what that was. */
  public LogTail addOutput(String key, long offset, byte[] data) throws IOException {
    LogTail tail = LogTail.of(logLength(key), offset, data.length);
    if (tail.extendsLog()) {
      try (FileChannel ch =
          FileChannel.open(
              file(key, ".log"),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.APPEND)) {
        ch.write(ByteBuffer.wrap(data, tail.from(), data.length - tail.from()));
        ch.force(true);
      }
    }
    return tail;
  }

  private Path file(String key, String suffix) {
    // The key becomes a file name, so it must be a valid record key (no slash, no "..").
    RecordKeys.validate(key);
    return dir.resolve(key + suffix);
  }

  private static void write(Path p, byte[] bytes, boolean append) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            p,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(ByteBuffer.wrap(bytes));
      ch.force(true);
    }
  }
}
