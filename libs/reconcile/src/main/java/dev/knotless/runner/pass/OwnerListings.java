package dev.knotless.runner.pass;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.records.RepoRecord;
import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repository records of owners a runner is told to watch many repositories of, each read in one
 * listing of their {@code dev.knotless.repo} collection, a page of 100 a request, rather than one
 * read a repository: a list naming 10,000 repositories of one owner is read in 100 requests, not
 * 10,000. A label whose name the listing lacks (renamed, so its old name only redirects, or gone)
 * is left to the usual read, which follows redirects and says what is wrong. Immutable once listed;
 * thread-safe.
 */
public final class OwnerListings {
  /** From how many labels of one owner its records are listed rather than read one by one. */
  public static final int LIST_FROM = 20;

  private static final Logger LOG = LoggerFactory.getLogger(OwnerListings.class);

  /** Per owner as the labels name it: where it lives, and its records by name. */
  private record Owner(RepoAddress base, Map<String, Record> byName) {}

  private final Map<String, Owner> owners;
  private final StorageCache cache;

  private OwnerListings(Map<String, Owner> owners, StorageCache cache) {
    this.owners = owners;
    this.cache = cache;
  }

  /**
   * Lists the records of every owner {@code labels} name at least {@link #LIST_FROM} times. An
   * owner whose listing fails is logged and left to the usual reads.
   */
  public static OwnerListings list(
      List<String> labels,
      IdentityResolver identities,
      Function<URI, XrpcClient> ownerClient,
      StorageCache cache) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String label : labels) {
      String owner = owner(label);
      if (owner != null) {
        counts.merge(owner, 1, Integer::sum);
      }
    }
    Map<String, Owner> owners = new HashMap<>();
    counts.forEach(
        (owner, n) -> {
          if (n < LIST_FROM) {
            return;
          }
          try {
            Identity id = identities.resolve(owner);
            owners.put(
                owner,
                new Owner(
                    new RepoAddress(id.did(), owner, id.pds(), "-"),
                    records(ownerClient.apply(id.pds()), id.did())));
          } catch (IOException | IllegalArgumentException e) {
            LOG.warn("{}: its repositories could not be listed; each is read alone: {}", owner, e);
          }
        });
    return new OwnerListings(owners, cache);
  }

  /**
   * The repository {@code label} names, from its owner's listing; null when its owner was not
   * listed or the listing has no record of that name, for the usual read to say why.
   *
   * @throws RecordFormatException when the record is not a repository record
   */
  public Watched watched(String label) throws RecordFormatException {
    String owner = owner(label);
    Owner o = owner == null ? null : owners.get(owner);
    if (o == null) {
      return null;
    }
    String name = name(label);
    Record r = o.byName().get(name);
    if (r == null) {
      return null;
    }
    RepoAddress address = new RepoAddress(o.base().did(), owner, o.base().pds(), name);
    RepoRecord record = RepoRecord.parse(r.uri(), name, r.value());
    cache.putKey(address, record.key());
    return new Watched(label, address, new RepoId(address.did(), record.key()));
  }

  private static Map<String, Record> records(XrpcClient client, String did) throws IOException {
    Map<String, Record> byName = new HashMap<>();
    String cursor = null;
    while (true) {
      RecordPage page = client.listRecords(did, Lexicons.REPO, 100, cursor, false);
      for (Record r : page.records()) {
        byName.put(r.rkey(), r);
      }
      if (page.records().size() < 100 || page.cursor() == null) {
        return byName;
      }
      cursor = page.cursor();
    }
  }

  private static String owner(String label) {
    return label.contains("/") ? Watched.ownerOf(label) : null;
  }

  private static String name(String label) {
    return Watched.nameOf(label);
  }
}
