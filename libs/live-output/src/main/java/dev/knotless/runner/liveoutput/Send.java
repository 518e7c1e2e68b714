package dev.knotless.runner.liveoutput;

/**
 * One putRunOutput call's content. Immutable.
 *
 * @param offset the byte offset of {@code text} in the run's masked log
 * @param text masked whole lines, at most {@link Pieces#MAX_PIECE_BYTES} bytes of UTF-8; may be
 *     empty when only the progress changed
 * @param progress where the run is
 * @param ended whether this is the last send, saying the run ended
 */
public record Send(long offset, String text, Progress progress, boolean ended) {}
