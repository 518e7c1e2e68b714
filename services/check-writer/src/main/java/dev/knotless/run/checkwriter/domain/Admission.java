package dev.knotless.run.checkwriter.domain;

import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.state.pg.PgRunQueue.IssuedRun;
import java.util.Optional;

/**
 * Whether a run event may touch a check: a {@code filed} event only when the queue issued a run
 * under its check key for the same repository, commit and workflow; any other event only once its
 * check's run was filed. Anyone who can write to the topic could otherwise file a success for a
 * commit that never ran. Pure.
 */
public final class Admission {
  private Admission() {}

  /**
   * Why {@code filed} is refused, or empty when it names the run the queue issued.
   *
   * @param issued what the queue issued under the event's check key, if anything
   */
  public static Optional<String> refusal(RunEvent.Filed filed, Optional<IssuedRun> issued) {
    String key = filed.checkKey();
    if (issued.isEmpty()) {
      return Optional.of("no run with check key " + key + " was queued");
    }
    IssuedRun run = issued.get();
    String repo = filed.ownerDid() + "/" + filed.repoKey();
    if (!run.repo().equals(repo)) {
      return Optional.of(
          "the queued run " + key + " is of repository " + run.repo() + ", not " + repo);
    }
    if (!run.commit().equals(filed.commit())) {
      return Optional.of(
          "the queued run " + key + " checks commit " + run.commit() + ", not " + filed.commit());
    }
    if (!run.workflow().equals(filed.workflow())) {
      return Optional.of(
          "the queued run "
              + key
              + " runs workflow "
              + run.workflow()
              + ", not "
              + filed.workflow());
    }
    return Optional.empty();
  }

  /** Why an event other than {@code filed} is refused for a check whose run was never filed. */
  public static String unfiled(RunEvent event) {
    return "no run with check key " + event.checkKey() + " was queued and filed";
  }
}
