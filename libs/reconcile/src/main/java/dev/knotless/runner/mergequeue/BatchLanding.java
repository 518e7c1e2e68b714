package dev.knotless.runner.mergequeue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.pull.PullState;
import dev.knotless.runner.queue.QueuePlan;
import dev.knotless.runner.queue.QueueState.Batch;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out {@link QueuePlan.Land}: one push of a passing batch's tip to its branch, against the
 * branch as last read, refusing unless the branch is exactly at the batch's base; then a {@code
 * merged} state for each of its pulls in the owner's account. {@link #adopt} writes the states a
 * batch that landed before a stop may lack, so a batch is never pushed twice and never half marked.
 * The clients act as the repository's owner (the runner landing the queue writes to it). Not
 * thread-safe per repository: one pass at a time lands a repository's batches.
 */
public final class BatchLanding {

  private static final Logger LOG = LoggerFactory.getLogger(BatchLanding.class);

  private final Pusher pusher;
  private final XrpcClient owner;
  private final Clock clock;

  /**
   * @param pusher pushes as the owner
   * @param owner writes the states, logged in as the owner
   */
  public BatchLanding(Pusher pusher, XrpcClient owner, Clock clock) {
    this.pusher = pusher;
    this.owner = owner;
    this.clock = clock;
  }

  /** How a landing went. */
  public sealed interface Landed permits Pushed, Refused {}

  /** The branch is at the batch's tip, in one push. */
  public record Pushed(String tip) implements Landed {}

  /**
   * Nothing landed.
   *
   * @param branchTip where the branch was when the push was refused, or null when unknown
   * @param why the refusal, as the PDS or the check said it
   */
  public record Refused(String branchTip, String why) implements Landed {}

  /**
   * Lands {@code batch} on {@code baseRef} of the repository {@code snap} was read from, whose
   * mirror {@code git} holds the batch's tip.
   */
  public Landed land(Snapshot snap, Git git, String baseRef, Batch batch) throws IOException {
    String at = snap.ref(baseRef).filter(RefRecord::live).map(RefRecord::target).orElse(null);
    if (!batch.base().equals(at)) {
      return new Refused(at, baseRef + " is at " + at + ", not the batch's base " + batch.base());
    }
    PushResult r = pusher.push(snap, git, List.of(new RefUpdate(baseRef, batch.tip(), false)));
    if (!r.allOk()) {
      String why =
          r.outcomes().stream()
              .filter(o -> !o.ok())
              .map(PushResult.Outcome::error)
              .findFirst()
              .orElse("refused");
      LOG.info("batch {} on {} not landed: {}", batch.id(), baseRef, why);
      return new Refused(null, why);
    }
    String repoKey = snap.repo().key();
    LOG.info(
        "batch {} landed on {} at {}: {} pulls", batch.id(), baseRef, batch.tip(), batch.pulls());
    adopt(snap.address().did(), repoKey, batch);
    return new Pushed(batch.tip());
  }

  /**
   * Writes a {@code merged} state for each pull of a batch the branch holds that has none yet from
   * the owner: after a landing, or on adopting a batch that landed before a stop.
   */
  public void adopt(String ownerDid, String repoKey, Batch batch) throws IOException {
    Set<String> merged = new HashSet<>();
    for (Record s : PullReader.scan(owner, ownerDid, PullState.COLLECTION, repoKey + ".")) {
      if (s.value().path("state").asText().equals("merged")) {
        merged.add(s.value().path("pull").asText());
      }
    }
    for (Pull p : batch.pulls()) {
      if (merged.contains(p.uri())) {
        continue;
      }
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("pull", p.uri());
      v.put("state", "merged");
      v.put("createdAt", clock.instant().toString());
      owner.putRecord(ownerDid, PullState.COLLECTION, repoKey + "." + Tid.next(), v, Swap.none());
    }
  }
}
