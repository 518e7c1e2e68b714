package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TailRingTest {

  @Test
  void keepsExactlyTheLastBytesHoweverTheWritesAreSplit() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      int capacity = 1 + random.nextInt(64);
      TailRing ring = new TailRing(capacity);
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      int writes = random.nextInt(20);
      for (int w = 0; w < writes; w++) {
        byte[] chunk = new byte[random.nextInt(3 * capacity)];
        random.nextBytes(chunk);
        int from = chunk.length == 0 ? 0 : random.nextInt(chunk.length);
        int length = chunk.length - from;
        ring.add(chunk, from, length);
        all.write(chunk, from, length);
      }
      byte[] whole = all.toByteArray();
      int keep = Math.min(capacity, whole.length);
      byte[] expected = java.util.Arrays.copyOfRange(whole, whole.length - keep, whole.length);
      assertEquals(whole.length, ring.total());
      assertArrayEquals(expected, ring.kept(), "round " + round);
    }
  }
}
