package dev.knotless.runner.mergequeue;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.storage.merge.PullReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge queue's records read again every {@code --notice} seconds, so a change to them rings
 * the repository's door even when no frame brings it: Jetstream sends only the accounts it is asked
 * for, and a collaborator who queues a pull need not be one of them.
 *
 * <p>Each pass that reads a queue it lands tells this what it read ({@link #read}): whose accounts,
 * and each record there by key and CID. {@link #changed} lists those accounts' queue records under
 * the repository's key again and names the repositories where they differ from what their last pass
 * read; the caller rings those doors, and the pass that answers tells this what it read in turn. A
 * queue this runner does not land is forgotten ({@link #forget}) and not read again. An account
 * that cannot be read is passed over until the next time: a sweep still reads it.
 *
 * <p>Thread-safe: passes report from their threads, one timer thread calls {@link #changed}.
 */
public final class QueueNotice {

  private static final Logger LOG = LoggerFactory.getLogger(QueueNotice.class);

  /** Lists one account's queue records under a key prefix, as a pass reads them. */
  @FunctionalInterface
  public interface Scan {
    List<Record> records(XrpcClient client, String did, String prefix) throws IOException;
  }

  /**
   * What a pass read of one repository's queue: the owner's client, and for each account read (the
   * owner's first), its records' keys and CIDs.
   */
  private record Seen(XrpcClient owner, String ownerDid, Map<String, Set<String>> byAccount) {}

  private final QueuePass.Accounts accounts;
  private final Scan scan;
  private final Map<RepoId, Seen> seen = new ConcurrentHashMap<>();

  /**
   * @param accounts clients of the collaborators' PDSes
   * @param scan how records are listed: {@link #SCAN} but in tests
   */
  public QueueNotice(QueuePass.Accounts accounts, Scan scan) {
    this.accounts = accounts;
    this.scan = scan;
  }

  /** Lists the records with {@link PullReader#scan}, as {@link QueueRecords} reads them. */
  public static final Scan SCAN =
      (client, did, prefix) -> PullReader.scan(client, did, QueuePass.COLLECTION, prefix);

  /**
   * A pass read {@code repo}'s queue: {@code read} holds, for each account it read (the owner's and
   * the collaborators' whose PDS answered), the records it found.
   */
  public void read(RepoId repo, XrpcClient owner, Map<String, List<Record>> read) {
    Map<String, Set<String>> byAccount = new LinkedHashMap<>();
    read.forEach((did, records) -> byAccount.put(did, keys(records)));
    seen.put(repo, new Seen(owner, repo.ownerDid(), byAccount));
  }

  /** {@code repo}'s queue is not landed here, or it is no longer watched: it is not read again. */
  public void forget(RepoId repo) {
    seen.remove(repo);
  }

  /**
   * Lists again the queue records of every repository a pass read, and returns those whose records
   * are no longer what their last pass read. Never throws for an account it cannot read: that
   * account is passed over this time.
   */
  public List<RepoId> changed() {
    List<RepoId> out = new ArrayList<>();
    for (Map.Entry<RepoId, Seen> e : seen.entrySet()) {
      if (differs(e.getKey(), e.getValue())) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  private boolean differs(RepoId repo, Seen s) {
    String prefix = repo.recordKeyPrefix();
    for (Map.Entry<String, Set<String>> account : s.byAccount().entrySet()) {
      String did = account.getKey();
      Set<String> now;
      try {
        XrpcClient client = did.equals(s.ownerDid()) ? s.owner() : accounts.of(did);
        now = keys(scan.records(client, did, prefix));
      } catch (IOException e) {
        LOG.debug("{}: queue records of {} not read again: {}", repo, did, e.getMessage());
        continue;
      }
      if (!now.equals(account.getValue())) {
        LOG.debug("{}: the queue records of {} changed since the last pass", repo, did);
        return true;
      }
    }
    return false;
  }

  private static Set<String> keys(List<Record> records) {
    Set<String> out = new LinkedHashSet<>();
    for (Record r : records) {
      out.add(r.rkey() + "@" + Objects.requireNonNullElse(r.cid(), ""));
    }
    return out;
  }
}
