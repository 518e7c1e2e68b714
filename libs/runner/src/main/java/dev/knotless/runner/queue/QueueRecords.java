package dev.knotless.runner.queue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pulls.PullPass;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.merge.PullReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code dev.knotless.queue} records of a repository: those the owner and each collaborator
 * wrote in their own accounts under the {@code <repo key>.} prefix, in TID order, a pull named
 * twice taken at the older record. Records anyone else wrote are never read. Thread-safe.
 */
public final class QueueRecords {

  private static final Logger LOG = LoggerFactory.getLogger(QueueRecords.class);

  private final String runnerDid;
  private final QueuePass.Accounts accounts;

  QueueRecords(String runnerDid, QueuePass.Accounts accounts) {
    this.runnerDid = runnerDid;
    this.accounts = accounts;
  }

  /** The pulls queued on a repository, as a pass read them before its pulls step. */
  public record Queue(boolean lands, List<Queued> entries) {
    public Queue {
      entries = List.copyOf(entries);
    }

    /** What the pulls step holds back: the queued pulls, which run only in their batches. */
    public PullPass.Held held() {
      Set<String> uris = new LinkedHashSet<>();
      entries.forEach(e -> uris.add(e.pull()));
      return lands ? new PullPass.Held(true, uris) : PullPass.Held.NONE;
    }
  }

  /** A queue record: the pull it names, and its TID, which orders the queue. */
  public record Queued(String pull, String tid) {}

  /**
   * Reads the repository's queue records, before the pulls step, so that the pulls queued do not
   * run on their own. A repository this runner does not land reads none.
   */
  public Queue read(Watched repo, XrpcClient owner, Snapshot snap) throws IOException {
    String ownerDid = repo.id().ownerDid();
    if (!runnerDid.equals(ownerDid)) {
      if (names(snap.repo().raw().path("runners"), runnerDid)) {
        LOG.debug(
            "{}: its queue is not landed here: this runner's account does not write to it, and a"
                + " runner that does not lands only through the gateway, which is not built",
            repo.label());
      }
      return new Queue(false, List.of());
    }
    List<String> writers = new ArrayList<>();
    writers.add(ownerDid);
    snap.repo().raw().path("collaborators").forEach(n -> writers.add(n.asText()));
    String prefix = repo.id().repoKey() + ".";
    Map<String, Queued> byPull = new LinkedHashMap<>();
    List<Queued> all = new ArrayList<>();
    for (String did : writers) {
      List<Record> records;
      try {
        records =
            PullReader.scan(
                did.equals(ownerDid) ? owner : accounts.of(did), did, QueuePass.COLLECTION, prefix);
      } catch (IOException e) {
        // A collaborator's PDS down leaves their queue records out of this pass, not the rest.
        LOG.warn("{}: queue records of {} not read: {}", repo.label(), did, e.getMessage());
        continue;
      }
      for (Record r : records) {
        JsonNode pull = r.value().path("pull");
        if (!pull.isTextual() || !pull.asText().startsWith("at://")) {
          LOG.warn("{}: queue record {} of {} passed over: no pull", repo.label(), r.rkey(), did);
          continue;
        }
        all.add(new Queued(pull.asText(), r.rkey().substring(prefix.length())));
      }
    }
    // Queue order is the records' TIDs; a pull named twice is queued once, at the older.
    all.sort(java.util.Comparator.comparing(Queued::tid));
    for (Queued q : all) {
      byPull.putIfAbsent(q.pull(), q);
    }
    return new Queue(true, List.copyOf(byPull.values()));
  }

  private static boolean names(JsonNode runners, String did) {
    for (JsonNode n : runners) {
      if (did.equals(n.asText())) {
        return true;
      }
    }
    return false;
  }
}
