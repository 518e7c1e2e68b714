package dev.knotless.runner.liveoutput;

/**
 * One putRunOutput call's content. Immutable.
 *
 * @param text masked whole lines, at most {@link Pieces#MAX_PIECE_BYTES} bytes of UTF-8; may be
 *     empty when only the progress changed
 * @param progress where the run is
 * @param ended whether this is the last send, saying the run ended
 */
public record Send(String text, Progress progress, boolean ended) {}
