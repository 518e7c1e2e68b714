package dev.knotless.runner.reconcile;

import dev.knotless.runner.state.WantedRun;
import java.util.List;

/**
 * Workflows asked for by name at a ref, to run at its current target in the ASKED class.
 *
 * @param ref the ref as it is now
 * @param runs the workflows and their variables
 */
public record AskedRun(RefState ref, List<WantedRun> runs) {
  public AskedRun {
    runs = List.copyOf(runs);
  }
}
