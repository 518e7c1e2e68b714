package dev.knotless.cli.checks;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code --watch}: reads one check again and again until it ends, saying each time its status moves
 * and each step the record names, as it first names it and again when its status changes. The
 * record is written as a run starts and as it ends, so steps usually show at the end, all at once.
 * Not thread-safe; one per watch.
 */
public final class CheckWatch {
  /** Reads the check as it is now; empty once it is gone. */
  @FunctionalInterface
  public interface Reread {
    Optional<CheckEntry> read(CheckEntry c) throws IOException;
  }

  /** Waits between reads; a test's returns at once. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  private final Reread reread;
  private final Sleeper sleeper;
  private final Duration every;
  private final Clock clock;

  public CheckWatch(Reread reread, Sleeper sleeper, Duration every, Clock clock) {
    this.reread = reread;
    this.sleeper = sleeper;
    this.every = every;
    this.clock = clock;
  }

  /**
   * Watches {@code start} until it ends, printing its moves to {@code out}.
   *
   * @return the check as it ended
   * @throws IOException when it cannot be read, or is deleted while watched
   * @throws InterruptedException when interrupted while waiting
   */
  public CheckEntry until(CheckEntry start, PrintStream out, Colors c)
      throws IOException, InterruptedException {
    String status = null;
    Map<String, String> steps = new HashMap<>();
    CheckEntry now = start;
    while (true) {
      if (!now.status().equals(status)) {
        status = now.status();
        out.println(
            now.workflow() + " at " + CheckFormat.shortSha(now.commit()) + ": " + c.status(status));
      }
      int i = 0;
      for (CheckEntry.Step s : now.steps()) {
        // Steps are told apart by place, as two steps may share a name.
        String k = (i++) + "\u0000" + s.name();
        if (!s.status().equals(steps.put(k, s.status()))) {
          out.println(CheckFormat.stepLine(s, clock.instant(), c));
        }
      }
      if (now.ended()) {
        return now;
      }
      sleeper.sleep(every);
      CheckEntry was = now;
      now =
          reread
              .read(was)
              .orElseThrow(
                  () -> new IOException("check " + was.rkey() + " was deleted while watched"));
    }
  }

  /** The exit code a watch ends with: 0 for success, 1 for any other end. */
  public static int exitCode(CheckEntry ended) {
    return ended.status().equals("success") ? 0 : 1;
  }
}
