package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.KnotlessUrl;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.compact.Compactor;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/** {@code knotless repo compact [--due] <url>}: folds old packs (owner only). */
public final class CompactCommand implements Command {
  @Override
  public List<String> words() {
    return List.of("repo", "compact");
  }

  @Override
  public String usage() {
    return "repo compact [--due] knotless://<owner>/<name>";
  }

  @Override
  public int run(List<String> argv, CliContext ctx) throws IOException {
    Args args = Args.parse(argv, Set.of(), Set.of("--due"));
    KnotlessUrl url = KnotlessUrl.parse(args.one("repository URL"));
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(url);
    Compactor.Result r = compactor(repos, repo).compact(repo, args.flag("--due"));
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

  static Compactor compactor(KnotlessRepos repos, RepoAddress repo) throws IOException {
    return new Compactor(repos.writer(repo), repos.cache(), repos.clock(), repos.settings());
  }
}
