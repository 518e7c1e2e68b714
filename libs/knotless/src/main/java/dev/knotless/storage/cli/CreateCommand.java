package dev.knotless.storage.cli;

import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.records.RepoRecord;
import dev.knotless.storage.secrets.DefaultRunner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code knotless create <url> [--runner <did or handle>]... [--no-runner] [--default-branch
 * <name>]}: makes an empty repository, its record naming in {@code runners} the runners the owner
 * names, none with {@code --no-runner}, and otherwise the one the appview's describeServer names,
 * as a first push does ({@link DefaultRunner}). A repository of that name already there is left as
 * it is and the command fails saying so.
 */
public final class CreateCommand {

  private CreateCommand() {}

  /**
   * Makes {@code url} on {@code defaultBranch} (null for {@code main}), naming {@code runnersNamed}
   * (DIDs or handles), none with {@code noRunner}, else the appview's default runner.
   *
   * @return the exit code
   */
  public static int run(
      String url, List<String> runnersNamed, boolean noRunner, String defaultBranch, CliContext ctx)
      throws IOException {
    return run(url, runnersNamed, noRunner, defaultBranch, false, ctx);
  }

  /**
   * As {@link #run(String, List, boolean, String, CliContext)}; with {@code isPrivate} the
   * repository is made in a space of the owner's of its name, its runners made members of it.
   */
  public static int run(
      String url,
      List<String> runnersNamed,
      boolean noRunner,
      String defaultBranch,
      boolean isPrivate,
      CliContext ctx)
      throws IOException {
    String branch = defaultBranch == null ? "main" : defaultBranch;
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    List<String> named = new ArrayList<>();
    for (String who : runnersNamed) {
      named.add(
          who.startsWith("did:")
              ? who
              : IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local())
                  .resolve(who)
                  .did());
    }
    List<String> runners = DefaultRunner.forCreate(ctx.env(), named, noRunner);
    RepoRecord record =
        RepoRecord.create(repo.name(), branch, repos.clock().instant()).namingRunners(runners);
    if (isPrivate) {
      PrivateCreate.create(repos, repo, record, runners, ctx);
      return 0;
    }
    // The look covers the owner's space of the name too, where one is kept.
    if (PrivateRepos.hostNamed(repos) && PrivateRepos.open(repos, repo).isPresent()) {
      throw new IOException(repo.url() + " already exists; nothing was changed");
    }
    try {
      repos
          .writer(repo)
          .putRecord(repo.did(), Lexicons.REPO, repo.name(), record.toJson(), Swap.absent());
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.INVALID_SWAP) {
        throw new IOException(repo.url() + " already exists; nothing was changed", e);
      }
      throw e;
    }
    ctx.out().println("created " + repo.url());
    ctx.out()
        .println(
            runners.isEmpty()
                ? "it names no runner: nothing runs its workflows until one is added"
                    + " (knotless runners "
                    + repo.url()
                    + " add <did>)"
                : "its checks are run by " + String.join(", ", runners));
    return 0;
  }
}
