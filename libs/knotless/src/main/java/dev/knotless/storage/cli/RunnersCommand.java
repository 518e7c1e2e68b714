package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code knotless runners <url> [list | add <did> | remove <did>]}: shows or edits the accounts
 * whose checks readers trust, the repository record's {@code runners}. An edit rewrites the record
 * as read, every field this client does not know kept, guarded by the CID it was read at, and is
 * tried again from a fresh read if another write got there first. A private repository's record is
 * edited in its space ({@link PrivateRunners}).
 */
public final class RunnersCommand {
  /** How many times an edit is tried when the record keeps changing under it. */
  static final int ATTEMPTS = 5;

  private RunnersCommand() {}

  /** Prints the runners {@code url}'s record names, one DID a line; returns the exit code. */
  public static int list(String url, CliContext ctx) throws IOException {
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    var space = PrivateRepos.openIfPrivate(repos, repo, repos.reader(repo));
    List<String> named =
        space.isPresent()
            ? PrivateRunners.list(space.get(), repo)
            : runners(read(repos.reader(repo), repo).value());
    for (String did : named) {
      ctx.out().println(did);
    }
    return 0;
  }

  /**
   * Adds ({@code add}) or removes the runner {@code who} (a DID or handle) in {@code url}'s record;
   * returns the exit code.
   */
  public static int edit(String url, String who, boolean add, CliContext ctx) throws IOException {
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    String did = did(who, ctx, repos);
    XrpcClient owner = repos.writer(repo);
    var space = PrivateRepos.openIfPrivate(repos, repo, owner);
    if (space.isPresent()) {
      PrivateRunners.edit(space.get(), repo, did, add, owner, ctx);
      return 0;
    }
    boolean changed = edit(owner, repo, did, add);
    ctx.out()
        .println(
            changed
                ? (add ? "added " : "removed ") + did + (add ? " to " : " from ") + repo.url()
                : did
                    + (add ? " is already one of " : " is not one of ")
                    + repo.url()
                    + "'s runners");
    return 0;
  }

  /**
   * Adds or removes {@code did} in the record's runners, from a fresh read each attempt.
   *
   * @return whether the record changed
   */
  static boolean edit(XrpcClient owner, RepoAddress repo, String did, boolean add)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      Record r = read(owner, repo);
      List<String> now = runners(r.value());
      if (now.contains(did) == add) {
        return false;
      }
      ObjectNode value = withRunner(r.value(), did, add);
      try {
        owner.putRecord(repo.did(), Lexicons.REPO, repo.name(), value, Swap.cid(r.cid()));
        return true;
      } catch (XrpcException e) {
        if (e.kind() != XrpcException.Kind.INVALID_SWAP || attempt >= ATTEMPTS) {
          throw e.kind() == XrpcException.Kind.INVALID_SWAP
              ? new IOException(
                  repo.url() + "'s record kept changing while it was edited; try again", e)
              : e;
        }
      }
    }
  }

  public static Record read(dev.knotless.atproto.RecordStore client, RepoAddress repo)
      throws IOException {
    Optional<Record> r = client.findRecord(repo.did(), Lexicons.REPO, repo.name());
    if (r.isEmpty()) {
      throw new IOException("no repository " + repo.name() + " in " + repo.owner() + "'s account");
    }
    return r.get();
  }

  /**
   * A copy of repository record {@code record} with {@code did} added to or left out of its
   * runners. Entries this client cannot read stay as written; only the DID named changes.
   */
  static ObjectNode withRunner(JsonNode record, String did, boolean add) {
    ObjectNode value = ((ObjectNode) record).deepCopy();
    ArrayNode list = value.putArray("runners");
    for (JsonNode n : record.path("runners")) {
      if (!(n.isTextual() && n.asText().equals(did))) {
        list.add(n.deepCopy());
      }
    }
    if (add) {
      list.add(did);
    }
    return value;
  }

  /** The record's runners, as written; entries that are not strings are passed over. */
  public static List<String> runners(JsonNode value) {
    List<String> out = new ArrayList<>();
    for (JsonNode n : value.path("runners")) {
      if (n.isTextual()) {
        out.add(n.asText());
      }
    }
    return out;
  }

  private static String did(String who, CliContext ctx, KnotlessRepos repos) throws IOException {
    if (who.startsWith("did:")) {
      return who;
    }
    return IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local()).resolve(who).did();
  }
}
