package dev.knotless.runner.mergequeue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.queue.QueueLander;
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
 * twice taken at the older record. Records anyone else wrote are never read. What each read found
 * goes to the {@link QueueNotice}, which reads them again between passes. Thread-safe.
 */
public final class QueueRecords {

  private static final Logger LOG = LoggerFactory.getLogger(QueueRecords.class);

  private final String runnerDid;
  private final QueuePass.Accounts accounts;
  private final QueueNotice notice;
  private final Set<String> toldGateway = java.util.concurrent.ConcurrentHashMap.newKeySet();

  QueueRecords(String runnerDid, QueuePass.Accounts accounts, QueueNotice notice) {
    this.runnerDid = runnerDid;
    this.accounts = accounts;
    this.notice = notice;
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
    List<String> collaborators = texts(snap.repo().raw().path("collaborators"));
    QueueLander.Role role =
        QueueLander.of(
            runnerDid, ownerDid, collaborators, texts(snap.repo().raw().path("runners")));
    if (role == QueueLander.Role.THROUGH_GATEWAY && toldGateway.add(repo.stateKey())) {
      // The spec's landing for a runner that is not the owner's goes through the gateway, which
      // this version has no client for: rather than hold pulls it cannot land, it lets them run.
      LOG.info(
          "{}: this runner lands its merge queue only through the repository's gateway, since"
              + " its account is not the owner's; this version cannot push through a gateway, so"
              + " the queue is not landed here and queued pulls run as any pull. A runner logged"
              + " in as the owner, started with --queue, lands it",
          repo.label());
    }
    if (role != QueueLander.Role.OWNER) {
      notice.forget(repo.id());
      return new Queue(false, List.of());
    }
    List<String> writers = new ArrayList<>();
    writers.add(ownerDid);
    writers.addAll(collaborators);
    String prefix = repo.id().repoKey() + ".";
    Map<String, Queued> byPull = new LinkedHashMap<>();
    List<Queued> all = new ArrayList<>();
    Map<String, List<Record>> read = new LinkedHashMap<>();
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
      read.put(did, records);
      for (Record r : records) {
        JsonNode pull = r.value().path("pull");
        if (!pull.isTextual() || !pull.asText().startsWith("at://")) {
          LOG.warn("{}: queue record {} of {} passed over: no pull", repo.label(), r.rkey(), did);
          continue;
        }
        all.add(new Queued(pull.asText(), r.rkey().substring(prefix.length())));
      }
    }
    notice.read(repo.id(), owner, read);
    // Queue order is the records' TIDs; a pull named twice is queued once, at the older.
    all.sort(java.util.Comparator.comparing(Queued::tid));
    for (Queued q : all) {
      byPull.putIfAbsent(q.pull(), q);
    }
    return new Queue(true, List.copyOf(byPull.values()));
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
