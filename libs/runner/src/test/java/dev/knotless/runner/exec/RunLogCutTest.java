package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.mask.SecretMask;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunLogCutTest {

  private static final String SECRET = "the-secret-value-0123456789";

  /** Fills the log's head with lines of {@code y} until one more would pass it. */
  private static void fillHead(RunLog log) throws Exception {
    String line = "y".repeat(1023);
    while (log.offset() + 1024 <= RunLog.HEAD_BYTES) {
      log.write(line, "\n");
    }
  }

  @Test
  void aSecretWhoseLineTheTailCutsThroughLeavesNoPieceBehind(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("log");
    ByteArrayOutputStream events = new ByteArrayOutputStream();
    RunListener listener =
        new RunListener() {
          @Override
          public void logWritten(long offset, byte[] bytes) {
            assertEquals(events.size(), offset);
            events.writeBytes(bytes);
          }
        };
    RunLog log = new RunLog(file, OutputFilter.masking(SecretMask.of(List.of(SECRET))), listener);
    fillHead(log);
    log.write("z".repeat(2000), "\n"); // past the head: the cut starts here
    String secretLine = "token " + SECRET;
    log.write(secretLine, "\n");
    // Enough after it that the kept tail begins ten bytes into the secret's line.
    int after = RunLog.TAIL_BYTES - (secretLine.length() + 1 - 10);
    String filler = "f".repeat(99);
    for (int left = after; left > 0; left -= 100) {
      log.write(left >= 100 ? filler : "f".repeat(left - 1), "\n");
    }
    log.write("the end", "\n");
    log.close();

    String text = Files.readString(file, StandardCharsets.UTF_8);
    assertTrue(text.contains("bytes of output cut here"), "the cut is marked");
    assertTrue(text.endsWith("\nthe end\n"));
    for (int i = 0; i + 6 <= SECRET.length(); i++) {
      assertFalse(text.contains(SECRET.substring(i, i + 6)), "a piece of the secret is left");
    }
    assertTrue(Files.size(file) <= RunLog.HEAD_BYTES + RunLog.TAIL_BYTES + 200);
    assertEquals(text, events.toString(StandardCharsets.UTF_8), "the events rebuild the log");
  }
}
