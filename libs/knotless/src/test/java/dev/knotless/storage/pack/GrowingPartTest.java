package dev.knotless.storage.pack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrowingPartTest {

  @Test
  void aReaderGetsTheBytesAsTheyAreWrittenAndEndsWhenThePartIsFinished() throws Exception {
    byte[] array = new byte[10];
    GrowingPart part = new GrowingPart(array, 0);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<byte[]> read = pool.submit(() -> part.stream().readAllBytes());
      for (int i = 0; i < 6; i++) {
        array[i] = (byte) (i + 1);
        part.filledTo(i + 1);
      }
      assertTrue(!read.isDone(), "the reader waits for the rest");
      part.finish();
      assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, read.get(5, TimeUnit.SECONDS));
      assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, part.awaitBytes(), "a short last part");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFullPartIsItsOwnArray() throws Exception {
    byte[] array = new byte[4];
    GrowingPart part = new GrowingPart(array, 4);
    part.finish();
    assertSame(array, part.awaitBytes());
    assertArrayEquals(array, part.stream().readAllBytes());
  }

  @Test
  void aWriterThatFailsFailsItsWaitingReaderAndTheBytesRatherThanLeavingThemWaiting()
      throws Exception {
    GrowingPart part = new GrowingPart(new byte[8], 3);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<byte[]> read = pool.submit(() -> part.stream().readAllBytes());
      part.fail(new IOException("git pack-objects died"));
      Exception e = assertThrows(Exception.class, () -> read.get(5, TimeUnit.SECONDS));
      assertTrue(String.valueOf(e.getCause()).contains("git pack-objects died"), e.toString());
      IOException bytes = assertThrows(IOException.class, part::awaitBytes);
      assertEquals("git pack-objects died", bytes.getMessage());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void readsOfAnyLengthSeeTheSameBytes() throws Exception {
    byte[] array = new byte[1000];
    for (int i = 0; i < array.length; i++) {
      array[i] = (byte) i;
    }
    GrowingPart part = new GrowingPart(array, array.length);
    part.finish();
    InputStream in = part.stream();
    byte[] out = new byte[1000];
    int at = 0;
    out[at++] = (byte) in.read();
    for (int n; (n = in.read(out, at, Math.min(7, out.length - at))) > 0; ) {
      at += n;
    }
    assertEquals(-1, in.read());
    assertArrayEquals(array, Arrays.copyOf(out, at));
  }
}
