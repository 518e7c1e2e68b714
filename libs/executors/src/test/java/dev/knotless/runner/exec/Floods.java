package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Steps that print at full speed, in busybox shell, and what their log must then hold: the executor
 * contract's output tests. Each script's output is also built here byte for byte, so a log can be
 * compared with what the step wrote.
 */
public final class Floods {

  private Floods() {}

  /** The numbered line {@code i} of a flood, with its newline. */
  public static String line(String stream, int i) {
    return stream + "-" + i + "-abcdefghijklmnopqrstuvwxyz-0123456789\n";
  }

  /** Lines a step prints with {@code seq | sed}: written in blocks, cut anywhere. */
  public static String seqLines(String stream, int count) {
    return "seq 1 "
        + count
        + " | sed 's/.*/"
        + stream
        + "-&-abcdefghijklmnopqrstuvwxyz-0123456789/'";
  }

  /** Lines a step prints with the shell's own echo: one write of one whole line each. */
  public static String echoLines(String stream, int count) {
    return "i=0; while [ $i -lt "
        + count
        + " ]; do i=$((i+1)); echo \""
        + stream
        + "-$i-abcdefghijklmnopqrstuvwxyz-0123456789\"; done";
  }

  /** Bytes {@code 0x01 0x02 0xff 0xfe 0xc0 0x80 0x00}: not UTF-8, with a NUL. */
  public static final String BINARY_SCRIPT = "printf '\\001\\002\\377\\376\\300\\200\\000'";

  public static final byte[] BINARY = {1, 2, (byte) 0xff, (byte) 0xfe, (byte) 0xc0, (byte) 0x80, 0};

  /**
   * One stream of every kind: 30,000 numbered lines in blocks, a line of a mebibyte less one byte,
   * progress lines ended by {@code \r}, bytes that are not UTF-8, and a last line with no newline;
   * about 2.5 MB, under the log's head.
   */
  public static final String MIXED_SCRIPT =
      seqLines("out", 30_000)
          + "; head -c 1048575 /dev/zero | tr '\\0' x; echo"
          + "; printf 'progress 10%%\\rprogress 20%%\\rprogress 30%%\\r'"
          + "; "
          + BINARY_SCRIPT
          + "; printf 'the end without a newline'";

  /** What {@link #MIXED_SCRIPT} writes. */
  public static byte[] mixed() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 1; i <= 30_000; i++) {
      out.writeBytes(line("out", i).getBytes(StandardCharsets.US_ASCII));
    }
    out.writeBytes("x".repeat(1048575).getBytes(StandardCharsets.US_ASCII));
    out.write('\n');
    out.writeBytes(
        "progress 10%\rprogress 20%\rprogress 30%\r".getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(BINARY);
    out.writeBytes("the end without a newline".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  /**
   * The bytes of the one step of {@code log} named {@code step}: from after its header to the
   * header of {@code next}, less the newline the runner ends an unended last line with.
   */
  public static byte[] stepBytes(byte[] log, String step, String next) {
    byte[] header = ("==> " + step + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] after = ("\n==> " + next + "\n").getBytes(StandardCharsets.UTF_8);
    int from = indexOf(log, header, 0);
    assertTrue(from >= 0, "no header for " + step);
    from += header.length;
    int to = indexOf(log, after, from);
    assertTrue(to >= 0, "no header for " + next + " after " + step);
    return Arrays.copyOfRange(log, from, to);
  }

  /**
   * Checks a log of two streams that each printed {@code count} numbered lines at once, past the
   * log's cap: every line in it is whole, each stream's lines are in order with none twice, the
   * head holds each stream from its first line and the tail each to its last, and the cut line says
   * exactly how many bytes are missing.
   */
  public static void checkTwoStreamFlood(byte[] log, int count, String step, String next) {
    String text = new String(log, StandardCharsets.US_ASCII);
    Matcher cut =
        Pattern.compile("\n\\.\\.\\. (\\d+) bytes of output cut here: [^\n]*\n").matcher(text);
    assertTrue(cut.find(), "a flood of this size is cut");
    String head = text.substring(0, cut.start() + 1);
    String tail = text.substring(cut.end());
    int headerEnd = head.indexOf("==> " + step + "\n") + ("==> " + step + "\n").length();
    int nextHeader = tail.indexOf("\n==> " + next + "\n");
    assertTrue(headerEnd > 0 && nextHeader >= 0, "the step's header and the next one's");
    String[] headLines = head.substring(headerEnd).split("\n");
    String[] tailLines = tail.substring(0, nextHeader).split("\n");
    int[] lastOut = {0, 0};
    checkLines(headLines, lastOut, true);
    int[] headSeen = lastOut.clone();
    int[] firstTail = {-1, -1};
    int[] last = {0, 0};
    for (String l : tailLines) {
      int[] sn = parse(l);
      if (firstTail[sn[0]] < 0) {
        firstTail[sn[0]] = sn[1];
        last[sn[0]] = sn[1] - 1;
      }
    }
    checkLines(tailLines, last, false);
    boolean oneEndsInTheTail = false;
    for (int s = 0; s < 2; s++) {
      if (firstTail[s] < 0) {
        continue; // this stream ended before the tail
      }
      assertEquals(count, last[s], "the tail ends with the stream's last line");
      assertTrue(firstTail[s] > headSeen[s], "no line is in both the head and the tail");
      oneEndsInTheTail = true;
    }
    assertTrue(oneEndsInTheTail, "the tail holds the end of the flood");
    long total = 2L * lineBytes(count);
    long kept = head.length() - headerEnd + tail.substring(0, nextHeader + 1).length();
    assertEquals(total, kept + Long.parseLong(cut.group(1)), "the cut counts what is missing");
  }

  /** Checks each line is a whole numbered line, each stream's numbers following on. */
  private static void checkLines(String[] lines, int[] last, boolean fromOne) {
    for (String l : lines) {
      int[] sn = parse(l);
      int expected = last[sn[0]] + 1;
      if (sn[1] != expected) {
        fail("line " + sn[1] + " of " + stream(sn[0]) + " came after " + last[sn[0]]);
      }
      last[sn[0]] = sn[1];
    }
    if (fromOne) {
      assertTrue(last[0] > 0 && last[1] > 0, "the head holds lines of both streams");
    }
  }

  private static final Pattern LINE =
      Pattern.compile("(out|err)-(\\d+)-abcdefghijklmnopqrstuvwxyz-0123456789");

  private static int[] parse(String l) {
    Matcher m = LINE.matcher(l);
    if (!m.matches()) {
      fail("a line that is not one the step printed (spliced?): " + abbreviate(l));
    }
    return new int[] {m.group(1).equals("out") ? 0 : 1, Integer.parseInt(m.group(2))};
  }

  private static String stream(int s) {
    return s == 0 ? "stdout" : "stderr";
  }

  private static long lineBytes(int count) {
    long n = 0;
    for (int i = 1; i <= count; i++) {
      n += line("out", i).length();
    }
    return n;
  }

  /** Checks no run of more than half of {@code secret}'s characters is in {@code text}. */
  public static void checkNoPieceOf(String secret, String text) {
    int piece = secret.length() / 2 + 1;
    for (int i = 0; i + piece <= secret.length(); i++) {
      String part = secret.substring(i, i + piece);
      assertFalse(text.contains(part), "a piece of the secret is in the log: " + part);
    }
  }

  public static void assertSameBytes(byte[] expected, byte[] actual, String what) {
    if (!Arrays.equals(expected, actual)) {
      int at = Arrays.mismatch(expected, actual);
      assertArrayEquals(
          Arrays.copyOfRange(expected, at, Math.min(expected.length, at + 64)),
          Arrays.copyOfRange(actual, at, Math.min(actual.length, at + 64)),
          what
              + ": "
              + expected.length
              + " bytes printed, "
              + actual.length
              + " in the log; they differ from byte "
              + at);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 120) + "...(" + s.length() + " chars)";
  }

  public static int indexOf(byte[] hay, byte[] needle, int from) {
    outer:
    for (int i = from; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
