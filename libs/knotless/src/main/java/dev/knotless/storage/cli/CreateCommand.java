package dev.knotless.storage.cli;

import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.records.RepoRecord;
import dev.knotless.storage.secrets.DefaultRunner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code knotless create <url> [--runner <did or handle>]... [--no-runner] [--default-branch
 * <name>]}: makes an empty repository, its record naming in {@code runners} the runners the owner
 * names, none with {@code --no-runner}, and otherwise the one the appview's describeServer names,
 * as a first push does ({@link DefaultRunner}). A repository of that name already there is left as
 * it is and the command fails saying so.
 */
public final class CreateCommand implements Command {

  @Override
  public List<String> words() {
    return List.of("create");
  }

  @Override
  public String usage() {
    return "create <url> [--runner <did or handle>]... [--no-runner] [--default-branch <name>]";
  }

  @Override
  public int run(List<String> argv, CliContext ctx) throws IOException {
    Args args = Args.parse(argv, Set.of("--runner", "--default-branch"), Set.of("--no-runner"));
    if (args.positional().size() != 1) {
      throw new UsageException("expected one repository, <handle or did>/<name>");
    }
    String branch = args.value("--default-branch");
    if (branch == null) {
      branch = "main";
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(args.positional().get(0)));
    List<String> named = new ArrayList<>();
    for (String who : args.values("--runner")) {
      named.add(
          who.startsWith("did:")
              ? who
              : IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local())
                  .resolve(who)
                  .did());
    }
    List<String> runners = DefaultRunner.forCreate(ctx.env(), named, args.flag("--no-runner"));
    RepoRecord record =
        RepoRecord.create(repo.name(), branch, repos.clock().instant()).namingRunners(runners);
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
