package dev.knotless.storage.cli;

import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.compact.Compactor;
import java.io.IOException;
import java.util.Optional;

/** {@code knotless repo compact [--due] <url>}: folds old packs (owner only). */
public final class CompactCommand {
  private CompactCommand() {}

  /**
   * Compacts {@code url}; with {@code due}, only when enough packs have piled up.
   *
   * @return the exit code
   */
  public static int run(String url, boolean due, CliContext ctx) throws IOException {
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    Compactor.Result r = compactor(repos, repo).compact(repo, due);
    if (r.skipped() != null) {
      ctx.out().println("nothing to compact: " + r.skipped());
    } else {
      ctx.out()
          .println(
              (r.packsFolded() == 0
                      ? "no packs to fold"
                      : "folded " + r.packsFolded() + " packs into " + r.pack())
                  + "; deleted "
                  + r.claimsDeleted()
                  + " old claims and "
                  + r.emptyRefsDeleted()
                  + " empty ref records");
    }
    return 0;
  }

  /** A compactor of {@code repo} as its owner: in its space, when it is a private one. */
  static Compactor compactor(KnotlessRepos repos, RepoAddress repo) throws IOException {
    XrpcClient owner = repos.writer(repo);
    RecordStore store = owner;
    if (PrivateRepos.hostNamed(repos)
        && owner.findRecord(repo.did(), Lexicons.REPO, repo.name()).isEmpty()) {
      Optional<SpaceRecords> space = PrivateRepos.open(repos, repo);
      if (space.isPresent()) {
        store = space.get();
      }
    }
    return new Compactor(store, repos.cache(), repos.clock(), repos.settings());
  }
}
