package dev.knotless.runner.liveoutput;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What of one run's log goes to the appview as it is printed, and when.
 *
 * <p>{@link #feed} takes the log's bytes at their offsets; only whole lines go on, each masked with
 * the run's secrets before it is cut into pieces (so a secret printed in pieces is never sent split
 * where masking would miss it). {@link #round} sends what is held, in order, and stops at the first
 * failure, keeping the rest for the next round; {@link #finalSends} gives the last sends, the rest
 * of the log with the run marked ended. {@link #interval} says when the next round is due.
 *
 * <p>Not thread-safe: one run's feed is driven by one thread.
 */
public final class OutputFeed {
  /** Between rounds while the appview says a page follows the run. */
  public static final Duration FOLLOWED_INTERVAL = Duration.ofSeconds(1);

  /** Between rounds while no page follows it. */
  public static final Duration UNFOLLOWED_INTERVAL = Duration.ofSeconds(5);

  /** The most the last send may take before the check is filed anyway. */
  public static final Duration FINAL_SEND_BUDGET = Duration.ofSeconds(5);

  /** Sends one piece to the appview. */
  @FunctionalInterface
  public interface Sender {
    /**
     * Sends a piece.
     *
     * @return whether the appview says a page follows the run
     * @throws IOException when the send failed, whatever the reason
     */
    boolean send(Send send) throws IOException;
  }

  /**
   * What a round did.
   *
   * @param sent how many pieces went
   * @param failure the failure that stopped the round, or null
   */
  public record Round(int sent, IOException failure) {}

  private final LineCutter cutter = new LineCutter();
  private final HoldBuffer hold;
  private final UnaryOperator<String> mask;
  private final int pieceBytes;
  private boolean followed;
  private boolean progressChanged = true;

  /**
   * @param mask masks one whole line with the run's secrets (identity for a log already masked)
   */
  public OutputFeed(UnaryOperator<String> mask) {
    this(mask, Pieces.MAX_PIECE_BYTES, new HoldBuffer());
  }

  /**
   * @param mask masks one whole line
   * @param pieceBytes the most bytes per piece
   * @param hold where pieces wait
   */
  public OutputFeed(UnaryOperator<String> mask, int pieceBytes, HoldBuffer hold) {
    this.mask = mask;
    this.pieceBytes = pieceBytes;
    this.hold = hold;
  }

  /** Feeds log bytes written at {@code offset}. */
  public void feed(long offset, byte[] data) {
    hold.add(Pieces.pack(maskAll(cutter.feed(offset, data)), pieceBytes));
  }

  /** Marks that a step started or ended, so the next round goes at once even with no text. */
  public void progressChanged() {
    progressChanged = true;
  }

  /** Whether a round should go now rather than wait for {@link #interval}. */
  public boolean dueNow() {
    return progressChanged;
  }

  /** How long until the next round: a second while a page follows, else five. */
  public Duration interval() {
    return followed ? FOLLOWED_INTERVAL : UNFOLLOWED_INTERVAL;
  }

  /** Sends what is held, oldest first, stopping at the first failure. */
  public Round round(Progress progress, Sender sender) {
    List<Piece> pieces = hold.held();
    if (pieces.isEmpty() && !progressChanged) {
      return new Round(0, null);
    }
    if (pieces.isEmpty()) {
      pieces = List.of(new Piece(cutter.unsentOffset(), ""));
    }
    int sent = 0;
    for (Piece piece : pieces) {
      try {
        followed = sender.send(new Send(piece.offset(), piece.text(), progress, false));
      } catch (IOException e) {
        hold.sent(sent);
        return new Round(sent, e);
      }
      if (!piece.text().isEmpty()) {
        sent++;
      }
      progressChanged = false;
    }
    hold.sent(sent);
    return new Round(sent, null);
  }

  /**
   * The last sends: everything held, the log's unended last line, and the run marked ended on the
   * last one. The caller gives them {@link #FINAL_SEND_BUDGET} in all and sends none again.
   */
  public List<Send> finalSends(Progress progress) {
    LineCutter.Line last = cutter.finish();
    if (last.bytes().length > 0) {
      hold.add(Pieces.pack(maskAll(List.of(last)), pieceBytes));
    }
    List<Piece> pieces = hold.held();
    List<Send> sends = new ArrayList<>();
    for (int i = 0; i < pieces.size(); i++) {
      Piece p = pieces.get(i);
      sends.add(new Send(p.offset(), p.text(), progress, i == pieces.size() - 1));
    }
    if (sends.isEmpty()) {
      sends.add(new Send(cutter.unsentOffset(), "", progress, true));
    }
    return sends;
  }

  /** Bytes held for the next round. */
  public long heldBytes() {
    return hold.heldBytes();
  }

  /** Bytes let go: overlong or broken lines, and the oldest held past the cap. */
  public long droppedBytes() {
    return cutter.droppedBytes() + hold.droppedBytes();
  }

  private List<Piece> maskAll(List<LineCutter.Line> lines) {
    List<Piece> out = new ArrayList<>(lines.size());
    for (LineCutter.Line line : lines) {
      out.add(
          new Piece(line.offset(), mask.apply(new String(line.bytes(), StandardCharsets.UTF_8))));
    }
    return out;
  }
}
