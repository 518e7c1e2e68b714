package dev.knotless.cli;

import dev.knotless.storage.cli.RunnersCommand;
import dev.knotless.storage.cli.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code knotless runners}. */
@Command(
    name = "runners",
    description = {
      "Show or edit the runners whose checks readers trust.",
      "Readers show the checks of the runners the repository record names.",
      "An edit keeps every field of the record this version does not know.",
      "On a private repository, add also makes the runner a member of its space and invites it at"
          + " the appview (KNOTLESS_APPVIEW); remove leaves it a member."
    })
final class RunnersCli extends KnotlessCommand {
  @Parameters(index = "0", paramLabel = "<url>", description = "<handle or did>/<name>")
  String url;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "list|add|remove",
      description = "what to do (list)")
  String action = "list";

  @Parameters(
      index = "2",
      arity = "0..1",
      paramLabel = "<did or handle>",
      description = "the runner to add or remove")
  String who;

  @Override
  public Integer call() throws Exception {
    switch (action) {
      case "list" -> {
        if (who != null) {
          throw new UsageException("list takes no more arguments");
        }
        return RunnersCommand.list(url, ctx());
      }
      case "add", "remove" -> {
        if (who == null) {
          throw new UsageException(action + " needs the runner's DID or handle");
        }
        return RunnersCommand.edit(url, who, action.equals("add"), ctx());
      }
      default -> throw new UsageException("unknown action " + action + ": list, add or remove");
    }
  }
}
