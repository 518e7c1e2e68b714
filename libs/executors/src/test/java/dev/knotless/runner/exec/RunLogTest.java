package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.mask.SecretMask;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunLogTest {

  private final ByteArrayOutputStream events = new ByteArrayOutputStream();
  private final RunListener rebuild =
      new RunListener() {
        @Override
        public void logWritten(long offset, byte[] bytes) {
          assertEquals(events.size(), offset, "pieces come in file order, none missing");
          events.writeBytes(bytes);
        }
      };

  /** Appends {@code bytes} in pieces of random sizes, as reads of a pipe would cut them. */
  private static void appendInPieces(RunLog log, byte[] bytes, Random random) throws Exception {
    for (int at = 0; at < bytes.length; ) {
      int n = Math.min(bytes.length - at, 1 + random.nextInt(70_000));
      log.append(bytes, at, n);
      at += n;
    }
  }

  @Test
  void aStepsBytesUnderTheCapAreTheLogExactlyBinaryAndCarriageReturnsIncluded(@TempDir Path dir)
      throws Exception {
    Random random = new Random(7);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    for (int i = 1; i <= 20_000; i++) {
      printed.writeBytes(("line-" + i + "-abcdefghijklmnopqrstuvwxyz-0123456789\n").getBytes());
    }
    printed.writeBytes("10%\r20%\r30%\r\n".getBytes());
    byte[] binary = new byte[4096];
    random.nextBytes(binary);
    printed.writeBytes(binary);
    printed.writeBytes("x".repeat(1 << 20).getBytes());
    printed.writeBytes("no newline at the end".getBytes());
    byte[] step = printed.toByteArray();

    Path file = dir.resolve("log");
    RunLog log = new RunLog(file, OutputFilter.none(), rebuild);
    log.lines("==> flood");
    appendInPieces(log, step, random);
    log.lines("==> next");
    log.close();

    byte[] expected =
        concat("==> flood\n".getBytes(), step, "\n==> next\n".getBytes(StandardCharsets.UTF_8));
    assertArrayEquals(expected, Files.readAllBytes(file), "the log is the step's bytes exactly");
    assertArrayEquals(expected, events.toByteArray(), "the listener's pieces rebuild the log");
  }

  @Test
  void aLogPastTheCapIsAPrefixOfWhatWasPrintedTheCutLineAndASuffix(@TempDir Path dir)
      throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    for (int i = 1; i <= 200_000; i++) {
      printed.writeBytes(("line-" + i + "-abcdefghijklmnopqrstuvwxyz-0123456789\n").getBytes());
    }
    byte[] step = printed.toByteArray();
    Path file = dir.resolve("log");
    RunLog log = new RunLog(file, OutputFilter.none(), rebuild);
    appendInPieces(log, step, new Random(11));
    log.close();

    byte[] written = Files.readAllBytes(file);
    assertArrayEquals(written, events.toByteArray(), "the listener's pieces rebuild the log");
    String text = new String(written, StandardCharsets.US_ASCII);
    Matcher cut =
        Pattern.compile(
                "\\.\\.\\. (\\d+) bytes of output cut here: a log keeps its first 3 MiB"
                    + " and its last 1 MiB \\.\\.\\.\n")
            .matcher(text);
    assertTrue(cut.find(), "the cut is marked");
    int headLength = cut.start();
    int tailStart = cut.end();
    long cutBytes = Long.parseLong(cut.group(1));
    // At most one line past the cap: the head never ends on half a line.
    assertTrue(headLength <= RunLog.HEAD_BYTES + 100 && headLength > RunLog.HEAD_BYTES - 100);
    assertEquals('\n', written[headLength - 1], "the head ends a line");
    assertArrayEquals(
        Arrays.copyOf(step, headLength), Arrays.copyOf(written, headLength), "the head");
    int tailLength = written.length - tailStart;
    assertTrue(tailLength <= RunLog.TAIL_BYTES && tailLength > RunLog.TAIL_BYTES - 100);
    assertArrayEquals(
        Arrays.copyOfRange(step, step.length - tailLength, step.length),
        Arrays.copyOfRange(written, tailStart, written.length),
        "the tail");
    assertEquals(step.length, headLength + cutBytes + tailLength, "the cut says what is missing");
    assertTrue(text.endsWith("line-200000-abcdefghijklmnopqrstuvwxyz-0123456789\n"));
  }

  @Test
  void aLineAPieceCutJustBeforeTheCapStaysWholeInTheHead(@TempDir Path dir) throws Exception {
    String line = "out-31795-abcdefghijklmnopqrstuvwxyz-0123456789\n";
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    // A first line of 11 bytes puts the cap 37 bytes into a line of 48.
    String first = "filler-abc\n";
    printed.writeBytes(first.getBytes(StandardCharsets.US_ASCII));
    while (printed.size() < RunLog.HEAD_BYTES + (2L << 20)) {
      printed.writeBytes(line.getBytes(StandardCharsets.US_ASCII));
    }
    byte[] step = printed.toByteArray();
    // A piece ends 32 bytes into the line that holds the cap, 5 bytes before it: the next piece,
    // the line's rest and more, has no newline within the 5 bytes of room.
    int lineAtCap =
        first.length()
            + (int) ((RunLog.HEAD_BYTES - first.length()) / line.length()) * line.length();
    int firstPiece = (int) RunLog.HEAD_BYTES - 5;
    assertEquals(32, firstPiece - lineAtCap, "the piece cuts the line where a pod's stream did");
    Path file = dir.resolve("log");
    RunLog log = new RunLog(file, OutputFilter.none(), rebuild);
    log.append(step, 0, firstPiece);
    log.append(step, firstPiece, 100_000);
    log.append(step, firstPiece + 100_000, step.length - firstPiece - 100_000);
    log.close();

    String text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
    int cut = text.indexOf("... ");
    String head = text.substring(0, cut);
    assertEquals(lineAtCap + line.length(), head.length(), "the head ends with the cap's line");
    assertTrue(head.endsWith(line), "whole: " + head.substring(head.length() - 60));
    String tail = text.substring(text.indexOf('\n', cut) + 1);
    assertTrue(tail.startsWith("out-") && tail.endsWith(line), "the tail is whole lines");
    assertArrayEquals(text.getBytes(StandardCharsets.US_ASCII), events.toByteArray());
  }

  @Test
  void theExecutorsOwnLinesAreMaskedAndStartOnALineOfTheirOwn(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("log");
    String secret = "s3cret-value-42";
    RunLog log =
        new RunLog(file, OutputFilter.masking(SecretMask.of(List.of(secret))), RunListener.NONE);
    byte[] prompt = "Password: ".getBytes(StandardCharsets.UTF_8);
    log.append(prompt, 0, prompt.length);
    log.lines("note about " + secret);
    log.close();
    assertEquals("Password: \nnote about ***\n", Files.readString(file));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
