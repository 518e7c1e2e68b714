package dev.knotless.runner.liveoutput;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The pieces waiting to go to the appview. A failed send keeps its piece and those after it for the
 * next round; past {@link #MAX_HELD_BYTES} held (as much as the appview keeps), the oldest pieces
 * are let go. Sizes are UTF-8 bytes. Not thread-safe.
 */
public final class HoldBuffer {
  /** The most bytes held for resending: one megabyte. */
  public static final long MAX_HELD_BYTES = 1024 * 1024;

  private final Deque<Piece> pieces = new ArrayDeque<>();
  private final long max;
  private long held;
  private long droppedBytes;

  /** A buffer holding at most {@link #MAX_HELD_BYTES}. */
  public HoldBuffer() {
    this(MAX_HELD_BYTES);
  }

  /**
   * A buffer holding at most {@code max} bytes.
   *
   * @param max the cap, positive
   */
  public HoldBuffer(long max) {
    if (max <= 0) {
      throw new IllegalArgumentException("the hold cap must be positive, got " + max);
    }
    this.max = max;
  }

  /** Adds pieces at the end, letting the oldest go while more than the cap is held. */
  public void add(List<Piece> newPieces) {
    for (Piece p : newPieces) {
      pieces.addLast(p);
      held += p.bytes();
    }
    while (held > max && !pieces.isEmpty()) {
      long bytes = pieces.removeFirst().bytes();
      held -= bytes;
      droppedBytes += bytes;
    }
  }

  /** The pieces held, oldest first. */
  public List<Piece> held() {
    return new ArrayList<>(pieces);
  }

  /** Removes the oldest {@code count} pieces, which were sent. */
  public void sent(int count) {
    for (int i = 0; i < count && !pieces.isEmpty(); i++) {
      held -= pieces.removeFirst().bytes();
    }
  }

  /** Bytes held now. */
  public long heldBytes() {
    return held;
  }

  /** Bytes let go because more than the cap was held. */
  public long droppedBytes() {
    return droppedBytes;
  }

  /** Whether nothing waits. */
  public boolean isEmpty() {
    return pieces.isEmpty();
  }
}
