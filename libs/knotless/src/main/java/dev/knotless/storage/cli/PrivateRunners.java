package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.invites.RunnerInvites;
import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * A private repository's runners: its record's {@code runners}, edited in its space, each runner
 * added made a member of the space (reading it and writing checks there both need that) and left an
 * invite at the appview ({@code dev.knotless.inviteRunner}), since nothing written in a space
 * reaches the appview or Jetstream for a runner to find it by. A runner removed stays a member: it
 * may be one for itself too. An invite that cannot be left is a warning, not a failure: the runner
 * can still be named on its command line.
 */
final class PrivateRunners {
  private PrivateRunners() {}

  /** The runners the record in the space names. */
  static List<String> list(SpaceRecords space, RepoAddress repo) throws IOException {
    return RunnersCommand.runners(read(space, repo).value());
  }

  /**
   * Adds or removes {@code did} in the record in the space, and for an add makes it a member and
   * invites it, even when the record named it already (so an invite that failed is left again).
   */
  static void edit(
      SpaceRecords space,
      RepoAddress repo,
      String did,
      boolean add,
      XrpcClient owner,
      CliContext ctx)
      throws IOException {
    Record r = read(space, repo);
    List<String> now = RunnersCommand.runners(r.value());
    boolean changed = now.contains(did) != add;
    if (changed) {
      ObjectNode value = RunnersCommand.withRunner(r.value(), did, add);
      // A space's writes have no swap: an edit racing another may undo it (docs/private.md).
      space.applyWrites(repo.did(), List.of(Write.update(Lexicons.REPO, repo.name(), value)));
    }
    ctx.out()
        .println(
            changed
                ? (add ? "added " : "removed ") + did + (add ? " to " : " from ") + repo.url()
                : did
                    + (add ? " is already one of " : " is not one of ")
                    + repo.url()
                    + "'s runners");
    if (add) {
      admit(space.client(), space.space(), repo, List.of(did), owner, ctx);
    } else if (changed) {
      ctx.out().println(did + " stays a member of its space");
    }
  }

  /** Makes each runner a member of the space and leaves it an invite, warning where it cannot. */
  static void admit(
      SpaceClient spaces,
      SpaceId space,
      RepoAddress repo,
      List<String> runners,
      XrpcClient owner,
      CliContext ctx)
      throws IOException {
    if (runners.isEmpty()) {
      return;
    }
    // A renamed one is read by its later names through the spaces they left, which a runner must
    // be a member of too.
    List<SpaceId> all = new java.util.ArrayList<>(List.of(space));
    if (spaces.getRecord(space, repo.did(), Lexicons.REPO, space.name()).isEmpty()) {
      all.addAll(dev.knotless.storage.SpaceRedirects.leadingTo(spaces, space));
    }
    for (String runner : runners) {
      for (SpaceId s : all) {
        spaces.addMember(s, runner);
      }
    }
    String appview = ctx.env().get(SecretCommand.APPVIEW);
    RunnerInvites invites =
        appview == null || appview.isBlank()
            ? null
            : new RunnerInvites(XrpcClient.create(URI.create(appview.strip())), owner);
    for (String runner : runners) {
      if (invites == null) {
        warn(ctx, runner, "no appview is named (" + SecretCommand.APPVIEW + ")");
        continue;
      }
      try {
        // Named by the space its records are in (a name that still leads to it), which the
        // appview's word of writes names too.
        invites.invite(repo.did(), space.name(), runner);
        ctx.out().println("made " + runner + " a member of its space, and invited it");
      } catch (IOException e) {
        warn(ctx, runner, e.getMessage());
      }
    }
  }

  private static void warn(CliContext ctx, String runner, String why) {
    ctx.err()
        .println(
            runner
                + " was not told of it: "
                + why
                + "; it is a member of its space, and `knotless runners <url> add` invites it"
                + " again, or name the repository on its command line");
  }

  private static Record read(SpaceRecords space, RepoAddress repo) throws IOException {
    return space
        .findRecord(repo.did(), Lexicons.REPO, repo.name())
        .orElseThrow(
            () ->
                new IOException(
                    "no repository " + repo.name() + " in " + repo.owner() + "'s space"));
  }
}
