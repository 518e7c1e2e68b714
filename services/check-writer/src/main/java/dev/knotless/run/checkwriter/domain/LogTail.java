package dev.knotless.run.checkwriter.domain;

/**
 * Which bytes of an output event extend a log that already holds {@code have} bytes: none if the
 * event lies wholly in what is held (a redelivery), its tail past {@code have} if it overlaps, and
 * a gap if it starts past the end (bytes never seen, which are not invented). Pure.
 *
 * @param from the index in the event's data of the first new byte, or -1 for none
 * @param gap how many bytes are missing before the event, 0 when it is contiguous or old
 */
public record LogTail(int from, long gap) {

  /** What of {@code length} bytes at {@code offset} extends a log of {@code have} bytes. */
  public static LogTail of(long have, long offset, int length) {
    if (offset < 0) {
      throw new IllegalArgumentException("an output offset must not be negative, got " + offset);
    }
    if (offset > have) {
      return new LogTail(-1, offset - have);
    }
    long seen = have - offset;
    if (seen >= length) {
      return new LogTail(-1, 0);
    }
    return new LogTail((int) seen, 0);
  }

  /** How many of an event's {@code length} bytes the log holds already (0 for a gap). */
  public int held(int length) {
    if (gap > 0) {
      return 0;
    }
    return from >= 0 ? from : length;
  }

  /**
   * Where {@code data} first differs from {@code held}, the log's bytes at the same offsets, over
   * the first {@code held.length} bytes; -1 where they agree. Bytes the log holds that an event
   * says otherwise mean another writer began the log again (a scheduler that adopted a run follows
   * its steps from their first byte, with lines of its own), so what follows is that writer's.
   */
  public static int firstDifference(byte[] held, byte[] data) {
    int n = Math.min(held.length, data.length);
    for (int i = 0; i < n; i++) {
      if (held[i] != data[i]) {
        return i;
      }
    }
    return -1;
  }

  /** Whether there are new bytes to append. */
  public boolean extendsLog() {
    return from >= 0;
  }
}
