package dev.knotless.runner.liveoutput;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Where a run is, sent with every piece so a page names the step going even if it never saw its
 * {@code ==>} line. Immutable.
 *
 * @param startedAt when the run started
 * @param stepsEnded the steps ended so far, in order, as {@code name=outcome}
 * @param stepGoing the step running now, or null between steps
 */
public record Progress(Instant startedAt, List<String> stepsEnded, String stepGoing) {
  public Progress {
    Objects.requireNonNull(startedAt, "startedAt");
    stepsEnded = List.copyOf(stepsEnded);
  }
}
