package dev.knotless.atproto;

/**
 * The {@code swapRecord} guard of a {@code putRecord} or {@code deleteRecord}.
 *
 * <p>{@link #none()} sends no guard, {@link #absent()} sends {@code null} (the write lands only if
 * no record is there), and {@link #cid(String)} names the CID the record must be at.
 */
public sealed interface Swap {

  /** No guard: an upsert. */
  static Swap none() {
    return None.INSTANCE;
  }

  /** Land only if no record is there ({@code swapRecord: null}). */
  static Swap absent() {
    return Absent.INSTANCE;
  }

  /** Land only if the record is at this CID. */
  static Swap cid(String cid) {
    return new Cid(cid);
  }

  /** See {@link Swap#none()}. */
  enum None implements Swap {
    INSTANCE
  }

  /** See {@link Swap#absent()}. */
  enum Absent implements Swap {
    INSTANCE
  }

  /** See {@link Swap#cid(String)}. */
  record Cid(String value) implements Swap {}
}
