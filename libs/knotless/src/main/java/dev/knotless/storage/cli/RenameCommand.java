package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.Keys;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.records.RedirectRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code knotless repo rename <url> <new name>}: renames a repository in one {@code applyWrites}
 * (storage.md, "Renames"): the repo record is written under the new name exactly as read and
 * deleted under the old, a {@code dev.knotless.redirect} is left under the old name pointing at the
 * new record by AT-URI and key, and every older redirect of the same key is repointed, so any
 * former name is one hop from the current one. A redirect already under the new name (the
 * repository is taking back a former name) is replaced. Refs, claims and packs are keyed by the
 * repository's key and stay as they are. Stateless.
 */
public final class RenameCommand {
  private RenameCommand() {}

  /** Renames {@code url} to {@code newName}; returns the exit code. */
  public static int run(String url, String newName, CliContext ctx) throws IOException {
    try {
      Keys.validateName(newName);
    } catch (IllegalArgumentException e) {
      throw new UsageException("the new name " + newName + ": " + e.getMessage());
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress from = repos.locate(OwnerUrls.parse(url));
    if (from.name().equals(newName)) {
      throw new UsageException(from.url() + " is already named " + newName);
    }
    XrpcClient owner = repos.writer(from);
    var space = PrivateRepos.openIfPrivate(repos, from, owner);
    if (space.isPresent()) {
      PrivateRename.rename(from, newName, space.get(), owner, ctx);
      return 0;
    }
    Record repo = RunnersCommand.read(owner, from);
    if (owner.findRecord(from.did(), Lexicons.REPO, newName).isPresent()) {
      throw new IOException(from.renamed(newName).url() + " already exists; nothing was changed");
    }
    List<Write> writes = writes(from, newName, repo, redirects(owner, from.did()), ctx);
    owner.applyWrites(from.did(), writes);
    ctx.out()
        .println(
            "renamed "
                + from.url()
                + " to "
                + from.renamed(newName).url()
                + "; the old name redirects to it");
    return 0;
  }

  /** The writes of a rename, in one batch. */
  static List<Write> writes(
      RepoAddress from, String newName, Record repo, List<Record> redirects, CliContext ctx)
      throws IOException {
    String key = repo.value().path("key").asText("");
    if (key.isEmpty()) {
      throw new IOException(from.url() + "'s record has no key");
    }
    AtUri target = new AtUri(from.did(), Lexicons.REPO, newName);
    String now = ctx.repos().clock().instant().toString();
    List<Write> writes = new ArrayList<>();
    ObjectNode moved = ((ObjectNode) repo.value()).deepCopy();
    if (moved.path("createdAt").isTextual()) {
      moved.put("createdAt", respelled(moved.path("createdAt").asText()));
    }
    writes.add(Write.create(Lexicons.REPO, newName, moved));
    writes.add(Write.delete(Lexicons.REPO, from.name()));
    boolean oldNameRedirected = false;
    for (Record r : redirects) {
      JsonNode v = r.value();
      if (!key.equals(v.path("key").asText(null))) {
        continue; // another repository's former name
      }
      if (r.rkey().equals(newName)) {
        writes.add(Write.delete(Lexicons.REDIRECT, newName));
        continue;
      }
      ObjectNode repointed = ((ObjectNode) v).deepCopy();
      repointed.put("repo", target.toString());
      writes.add(Write.update(Lexicons.REDIRECT, r.rkey(), repointed));
      oldNameRedirected |= r.rkey().equals(from.name());
    }
    if (!oldNameRedirected) {
      writes.add(
          Write.create(
              Lexicons.REDIRECT,
              from.name(),
              new RedirectRecord(from.name(), target, key, null, now).toJson()));
    }
    return writes;
  }

  /**
   * The same instant spelled another way: a trailing zero of the fraction dropped, or one added
   * ({@code 10:00:00Z} and {@code 10:00:00.0Z}). A record created in the commit that deletes one
   * with identical bytes shares its block, which the PDS then drops with the deleted record; a
   * renamed record must differ in bytes, and this changes none of its meaning.
   */
  static String respelled(String datetime) {
    if (!datetime.endsWith("Z")) {
      try {
        return java.time.OffsetDateTime.parse(datetime).toInstant().toString();
      } catch (java.time.format.DateTimeParseException e) {
        return datetime;
      }
    }
    String body = datetime.substring(0, datetime.length() - 1);
    if (body.endsWith(".0")) {
      return body.substring(0, body.length() - 2) + "Z";
    }
    if (body.contains(".") && body.endsWith("0")) {
      return body.substring(0, body.length() - 1) + "Z";
    }
    return body + (body.contains(".") ? "0" : ".0") + "Z";
  }

  /** Every redirect in the account. */
  static List<Record> redirects(dev.knotless.atproto.RecordStore owner, String did)
      throws IOException {
    List<Record> out = new ArrayList<>();
    String cursor = null;
    do {
      var page = owner.listRecords(did, Lexicons.REDIRECT, 100, cursor, false);
      out.addAll(page.records());
      cursor = page.records().size() < 100 ? null : page.cursor();
    } while (cursor != null);
    return out;
  }
}
