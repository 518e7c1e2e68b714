package dev.knotless.runner.exec.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LineMergeTest {

  @Test
  void twoStreamsCutAnywhereComeOutAsWholeLinesEachInItsOrder() throws Exception {
    Random random = new Random(3);
    LineMerge merge = new LineMerge(2);
    byte[][] streams = new byte[2][];
    for (int s = 0; s < 2; s++) {
      StringBuilder b = new StringBuilder();
      for (int i = 1; i <= 50_000; i++) {
        b.append(s == 0 ? "out-" : "err-").append(i).append("-").append("x".repeat(i % 50));
        b.append(i % 7 == 0 ? "\r" : "\n");
      }
      streams[s] = b.toString().getBytes(StandardCharsets.US_ASCII);
    }
    int[] at = {0, 0};
    while (at[0] < streams[0].length || at[1] < streams[1].length) {
      int s = at[0] >= streams[0].length ? 1 : at[1] >= streams[1].length ? 0 : random.nextInt(2);
      int n = Math.min(streams[s].length - at[s], 1 + random.nextInt(40_000));
      merge.add(s, streams[s], at[s], n);
      at[s] += n;
    }
    merge.end(null);
    String merged = new String(merge.stream().readAllBytes(), StandardCharsets.US_ASCII);

    int[] last = {0, 0};
    for (String line : merged.split("[\r\n]")) {
      int s = line.startsWith("out-") ? 0 : 1;
      String[] parts = line.split("-", -1);
      assertEquals(3, parts.length, "a spliced line: " + line);
      int n = Integer.parseInt(parts[1]);
      assertEquals(last[s] + 1, n, "out of order in stream " + s);
      assertEquals("x".repeat(n % 50), parts[2]);
      last[s] = n;
    }
    assertEquals(List.of(50_000, 50_000), List.of(last[0], last[1]));
    assertEquals(streams[0].length + streams[1].length, merged.length(), "every byte once");
  }

  @Test
  void aPromptWithoutANewlineComesOutAfterAPauseAndTheOtherStreamWaitsForItsLineToEnd()
      throws Exception {
    LineMerge merge = new LineMerge(2);
    InputStream in = merge.stream();
    byte[] prompt = "Continue? ".getBytes(StandardCharsets.US_ASCII);
    merge.add(0, prompt, 0, prompt.length);
    byte[] buffer = new byte[100];
    long t0 = System.nanoTime();
    int n = in.read(buffer);
    long waited = (System.nanoTime() - t0) / 1_000_000;
    assertEquals("Continue? ", new String(buffer, 0, n, StandardCharsets.US_ASCII));
    assertTrue(waited >= LineMerge.PAUSE.toMillis() - 5, "let go only after the pause");

    byte[] other = "a warning\n".getBytes(StandardCharsets.US_ASCII);
    merge.add(1, other, 0, other.length);
    byte[] answer = "yes\n".getBytes(StandardCharsets.US_ASCII);
    merge.add(0, answer, 0, answer.length);
    merge.end(null);
    List<String> rest = new ArrayList<>();
    for (int m; (m = in.read(buffer)) > 0; ) {
      rest.add(new String(buffer, 0, m, StandardCharsets.US_ASCII));
    }
    assertEquals("yes\na warning\n", String.join("", rest), "the prompt's line ends first");
  }
}
