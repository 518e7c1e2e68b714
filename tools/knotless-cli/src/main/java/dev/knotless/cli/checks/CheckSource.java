package dev.knotless.cli.checks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.KnotlessUrl;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.cli.RunnersCommand;
import dev.knotless.storage.merge.PullReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a repository's checks: its record for the key and the {@code runners} it names, then from
 * each runner's own account the check records under the repository's key prefix, one {@code
 * listRecords} scan a runner. Checks by accounts the record does not name are never read. A private
 * repository's record and checks are read in its space, each runner's from its repo there, as the
 * person logged in, a member. One per invocation; not thread-safe.
 */
public final class CheckSource {
  /** The check record's collection. */
  public static final String COLLECTION = "dev.knotless.check";

  private final KnotlessRepos repos;
  private final IdentityResolver identities;
  // The space of the private repository read last, or null for a public one.
  private dev.knotless.atproto.space.SpaceRecords space;

  public CheckSource(KnotlessRepos repos, Map<String, String> env) {
    this.repos = repos;
    this.identities = IdentityResolver.fromEnvironment(env, repos.cache().local());
  }

  /** A repository as read: where it is, its key and the runners it names. */
  public record Repo(RepoAddress address, String key, List<String> runners) {
    public Repo {
      runners = List.copyOf(runners);
    }

    /** The key prefix every check of this repository has: {@code <h(owner did)>.<key>.}. */
    public String prefix() {
      return CheckKeys.repoPrefix(address.did(), key);
    }
  }

  /**
   * Reads the repository {@code url} names ({@code <handle or did>/<name>}, with or without {@code
   * knotless://}).
   *
   * @throws IOException saying so when there is no such repository
   * @throws IllegalArgumentException when {@code url} is not a repository's name
   */
  public Repo repo(String url) throws IOException {
    RepoAddress at =
        repos.locate(
            KnotlessUrl.parse(url.startsWith(KnotlessUrl.SCHEME) ? url : KnotlessUrl.SCHEME + url));
    space =
        dev.knotless.storage.PrivateRepos.openIfPrivate(repos, at, repos.reader(at)).orElse(null);
    JsonNode v = RunnersCommand.read(space != null ? space : repos.reader(at), at).value();
    String key = v.path("key").asText("");
    if (key.isEmpty()) {
      throw new IOException(at.url() + "'s record has no key");
    }
    List<String> runners = RunnersCommand.runners(v);
    return new Repo(at, key, runners);
  }

  /** Every check the repository's runners filed of it, of one ref when {@code ref} is not null. */
  public List<CheckEntry> checks(Repo repo, String ref) throws IOException {
    String prefix =
        ref == null ? repo.prefix() : CheckKeys.refPrefix(repo.address().did(), repo.key(), ref);
    List<CheckEntry> out = new ArrayList<>();
    for (String runner : repo.runners()) {
      Identity id = identities.resolve(runner);
      List<Record> filed =
          space != null
              ? space.listPrefixed(id.did(), COLLECTION, prefix)
              : PullReader.scan(XrpcClient.create(id.pds()), id.did(), COLLECTION, prefix);
      for (Record r : filed) {
        out.add(
            new CheckEntry(
                id.did(), r.uri(), r.cid(), r.rkey().substring(repo.prefix().length()), r.value()));
      }
    }
    return out;
  }

  /** The check as its runner's PDS holds it now, or empty once it is gone. */
  public Optional<CheckEntry> reread(CheckEntry c) throws IOException {
    Identity id = identities.resolve(c.runner());
    Optional<Record> r = store(id).findRecord(id.did(), COLLECTION, c.rkey());
    return r.map(rec -> new CheckEntry(id.did(), rec.uri(), rec.cid(), c.tail(), rec.value()));
  }

  /**
   * Writes the check's log blob to {@code out} byte for byte, as filed, as it arrives.
   *
   * @throws IOException saying the check has no log yet, or that its blob is gone
   */
  public void log(CheckEntry c, java.io.OutputStream out) throws IOException {
    String cid = c.logCid();
    if (cid == null) {
      throw new IOException(
          c.ended()
              ? "check "
                  + c.rkey()
                  + " has no log: it ended "
                  + c.status()
                  + " before one was uploaded"
              : "check "
                  + c.rkey()
                  + " is "
                  + c.status()
                  + ": its log is uploaded as it ends (--watch waits for it)");
    }
    Identity id = identities.resolve(c.runner());
    try {
      dev.knotless.atproto.RecordStore pds = store(id);
      if (c.logSize() >= 0) {
        pds.getBlobInto(id.did(), cid, c.logSize(), out);
      } else {
        out.write(pds.getBlob(id.did(), cid, dev.knotless.atproto.BoundedBodies.XRPC_REPLY_BYTES));
      }
    } catch (XrpcException e) {
      if (e.status() == 400 || e.status() == 404) {
        throw new IOException(
            "the log of check "
                + c.rkey()
                + " (blob "
                + cid
                + ") is gone from "
                + c.runner()
                + "'s PDS: "
                + e.getMessage(),
            e);
      }
      throw e;
    }
  }

  private dev.knotless.atproto.RecordStore store(Identity runner) {
    return space != null ? space : XrpcClient.create(runner.pds());
  }
}
