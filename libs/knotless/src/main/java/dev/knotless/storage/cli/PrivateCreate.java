package dev.knotless.storage.cli;

import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.records.RepoRecord;
import java.io.IOException;
import java.util.List;

/**
 * {@code knotless create --private}: looks for a repository of the name, public or private, and
 * refuses before writing anything when there is one; else makes the owner's space of the name,
 * makes each runner named a member of it and invites it ({@link PrivateRunners}), and writes the
 * repo record there with an {@code applyWrites} create (a space's putRecord has no swap).
 */
final class PrivateCreate {
  private PrivateCreate() {}

  static void create(
      KnotlessRepos repos,
      RepoAddress repo,
      RepoRecord record,
      List<String> runners,
      CliContext ctx)
      throws IOException {
    XrpcClient owner = repos.writer(repo);
    if (owner.findRecord(repo.did(), Lexicons.REPO, repo.name()).isPresent()) {
      throw new IOException(repo.url() + " already exists; nothing was changed");
    }
    SpaceClient spaces = PrivateRepos.client(repos, repo, owner);
    SpaceId space;
    try {
      space = spaces.createSpace(repo.name());
    } catch (XrpcException e) {
      if ("SpaceAlreadyExists".equals(e.error())) {
        throw new IOException(repo.url() + " already exists; nothing was changed", e);
      }
      if (dev.knotless.atproto.space.SpaceErrors.loginRefused(e)) {
        throw new IOException(
            "could not make a space for "
                + repo.url()
                + ": "
                + e.serverMessage()
                + " (`knotless login`); nothing was changed",
            e);
      }
      throw new IOException(
          "could not make a space for "
              + repo.url()
              + " at "
              + PrivateRepos.host(repos, repo)
              + ": "
              + e.getMessage(),
          e);
    }
    spaces.applyWrites(space, List.of(Write.create(Lexicons.REPO, repo.name(), record.toJson())));
    ctx.out().println("created " + repo.url() + ", private: its records are in the space " + space);
    PrivateRunners.admit(spaces, space, repo, runners, owner, ctx);
    ctx.out()
        .println(
            runners.isEmpty()
                ? "it names no runner: nothing runs its workflows until one is added"
                : "its checks are run by "
                    + String.join(", ", runners)
                    + ", made members of its space");
  }
}
