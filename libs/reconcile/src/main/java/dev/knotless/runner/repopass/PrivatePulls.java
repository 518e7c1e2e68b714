package dev.knotless.runner.repopass;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.pass.Watched;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says, once per private repository, that its pulls and merge queue are not checked although the
 * runner checks pulls: both come from the appview, which lists no private repository's pulls (and
 * must not be asked about one by name, which would tell it the name). Thread-safe.
 */
final class PrivatePulls {
  private static final Logger LOG = LoggerFactory.getLogger(PrivatePulls.class);

  private final Set<RepoId> told = ConcurrentHashMap.newKeySet();

  /**
   * A pass of the private repository {@code repo} skipped its pulls (and, with {@code queue}, its
   * merge queue): logged the first time for each repository, not at every pass.
   */
  void skipped(Watched repo, boolean queue) {
    if (told.add(repo.id())) {
      LOG.info(
          "{}: private, so its pulls are not checked{}: the appview lists no private repository's"
              + " pulls",
          repo.label(),
          queue ? " and its merge queue is not landed" : "");
    }
  }
}
