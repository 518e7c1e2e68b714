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
    Record record = RunnersCommand.read(owner, repo);
    String key = record.value().path("key").asText("");
    if (key.isEmpty()) {
      throw new IOException(repo.url() + "'s record has no key");
    }
    int deleted = 0;
    for (String collection : KEYED) {
      List<Write> batch = new ArrayList<>();
      for (Record r : PullReader.scan(owner, repo.did(), collection, key + ".")) {
        batch.add(Write.delete(collection, r.rkey()));
        if (batch.size() == XrpcClient.MAX_WRITES) {
          owner.applyWrites(repo.did(), batch);
          deleted += batch.size();
          batch = new ArrayList<>();
        }
      }
      if (!batch.isEmpty()) {
        owner.applyWrites(repo.did(), batch);
        deleted += batch.size();
      }
    }
    List<Write> last = new ArrayList<>();
    last.add(Write.delete(Lexicons.REPO, repo.name()));
    for (Record r : RenameCommand.redirects(owner, repo.did())) {
      if (key.equals(r.value().path("key").asText(null))) {
        last.add(Write.delete(Lexicons.REDIRECT, r.rkey()));
      }
    }
    owner.applyWrites(repo.did(), last);
    ctx.out()
        .println(
            "deleted "
                + repo.url()
                + ": its record, "
                + deleted
                + " records keyed by it and "
                + (last.size() - 1)
                + " redirects of former names");
    return 0;
  }
}
