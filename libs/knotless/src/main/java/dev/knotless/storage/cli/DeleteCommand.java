package dev.knotless.storage.cli;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.merge.PullReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code knotless repo delete <url> --yes}: deletes a repository from its owner's account
 * (storage.md, "Deleting a repository"): every record keyed by the repository's key that this
 * version writes in the owner's account (refs, claims, packs, reruns, queue entries, states and the
 * owner's pulls into it), in batches of at most {@link XrpcClient#MAX_WRITES}, then, in a write of
 * its own, the repo record and the redirects of its former names. A delete cut short leaves the
 * repo record, so running it again carries on where it stopped. What other accounts wrote about the
 * repository stays in their accounts; blobs go as the PDS reaps those no record names. Stateless.
 */
public final class DeleteCommand {
  /** The collections keyed {@code <repo key>.…} that a delete empties, in this order. */
  static final List<String> KEYED =
      List.of(
          Lexicons.REF,
          Lexicons.CLAIM,
          Lexicons.PACK,
          RerunCommand.COLLECTION,
          QueueCommand.COLLECTION,
          "dev.knotless.state",
          "dev.knotless.pull");

  private DeleteCommand() {}

  /** Sends one batch of writes: the owner's {@code applyWrites}, or a caller's that wraps it. */
  @FunctionalInterface
  public interface Batches {
    void apply(List<Write> writes) throws IOException;
  }

  /**
   * What a delete took besides the repo record.
   *
   * @param keyed the records keyed by the repository's key
   * @param redirects the redirects of its former names
   */
  public record Deleted(int keyed, int redirects) {}

  /**
   * Deletes the repository {@code name}, whose key is {@code key}, from {@code did}'s account as
   * {@link #run} does: the records keyed by it, then the repo record and its redirects in a write
   * of their own, each batch sent through {@code apply}.
   *
   * @return how many records were deleted besides the repo record
   */
  public static Deleted deleteRecords(
      XrpcClient owner, String did, String name, String key, Batches apply) throws IOException {
    int deleted = 0;
    for (String collection : KEYED) {
      List<Write> batch = new ArrayList<>();
      for (Record r : PullReader.scan(owner, did, collection, key + ".")) {
        batch.add(Write.delete(collection, r.rkey()));
        if (batch.size() == XrpcClient.MAX_WRITES) {
          apply.apply(batch);
          deleted += batch.size();
          batch = new ArrayList<>();
        }
      }
      if (!batch.isEmpty()) {
        apply.apply(batch);
        deleted += batch.size();
      }
    }
    List<Write> last = new ArrayList<>();
    last.add(Write.delete(Lexicons.REPO, name));
    for (Record r : RenameCommand.redirects(owner, did)) {
      if (key.equals(r.value().path("key").asText(null))) {
        last.add(Write.delete(Lexicons.REDIRECT, r.rkey()));
      }
    }
    apply.apply(last);
    return new Deleted(deleted, last.size() - 1);
  }

  /**
   * Deletes {@code url}; {@code sure} is the owner's {@code --yes}, without which nothing is done.
   *
   * @return the exit code
   */
  public static int run(String url, boolean sure, CliContext ctx) throws IOException {
    if (!sure) {
      throw new UsageException(
          "deleting a repository cannot be undone: add --yes to delete " + url);
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    XrpcClient owner = repos.writer(repo);
    if (owner.findRecord(repo.did(), Lexicons.REPO, repo.name()).isEmpty()) {
      var space = dev.knotless.storage.PrivateRepos.open(repos, repo);
      if (space.isPresent()) {
        // Renamed, it left spaces of its later names holding only a redirect to its records':
        // they go first, the records' space last, so a delete cut short is carried on by name.
        var client = space.get().client();
        for (var other :
            dev.knotless.storage.SpaceRedirects.leadingTo(client, space.get().space())) {
          client.deleteSpace(other);
        }
        client.deleteSpace(space.get().space());
        ctx.out()
            .println(
                "deleted "
                    + repo.url()
                    + ": its space "
                    + space.get().space()
                    + " and everything in it");
        return 0;
      }
    }
    Record record = RunnersCommand.read(owner, repo);
    String key = record.value().path("key").asText("");
    if (key.isEmpty()) {
      throw new IOException(repo.url() + "'s record has no key");
    }
    Deleted done =
        deleteRecords(owner, repo.did(), repo.name(), key, w -> owner.applyWrites(repo.did(), w));
    ctx.out()
        .println(
            "deleted "
                + repo.url()
                + ": its record, "
                + done.keyed()
                + " records keyed by it and "
                + done.redirects()
                + " redirects of former names");
    return 0;
  }
}
