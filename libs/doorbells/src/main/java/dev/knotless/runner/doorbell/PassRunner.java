package dev.knotless.runner.doorbell;

import java.util.Set;

/**
 * One reconcile pass of one repository: reads the repository back from its owner's PDS and starts
 * whatever is due. {@link Doors} calls it, never twice at once for the same repository, on its pass
 * executor.
 *
 * <p>The pass logs its own details; {@link Doors} logs its end and duration and puts the MDC keys
 * {@code repo} and {@code pass} in place around the call.
 */
@FunctionalInterface
public interface PassRunner {
  /**
   * Runs one pass.
   *
   * @param repo the repository
   * @param reasons every ring this pass answers (at least one); rings that arrived during the
   *     previous pass are coalesced here
   * @throws Exception if the pass failed (the PDS is down, say): the door rings itself again after
   *     {@link Doors#retryDelay()}
   */
  void run(RepoId repo, Set<Doorbell> reasons) throws Exception;
}
