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

  /** Whether there are new bytes to append. */
  public boolean extendsLog() {
    return from >= 0;
  }
}
