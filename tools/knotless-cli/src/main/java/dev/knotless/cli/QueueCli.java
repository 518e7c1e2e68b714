package dev.knotless.cli;

import dev.knotless.storage.cli.QueueCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code knotless queue}, and {@link Dequeue}. */
@Command(
    name = "queue",
    description = {
      "Put a pull in its base branch's merge queue.",
      "It writes a dev.knotless.queue record in your account (KNOTLESS_IDENTIFIER's, else",
      "the one you last logged in as with knotless login, else the base owner's). Runners",
      "started with --queue land it, counting only the owner's and collaborators' records",
      "(docs/merge.md)."
    })
final class QueueCli extends KnotlessCommand {
  @Parameters(paramLabel = "<pull>", description = "the pull, at://<did>/dev.knotless.pull/<key>")
  String pull;

  @Override
  public Integer call() throws Exception {
    return QueueCommand.queue(pull, ctx());
  }

  /** {@code knotless dequeue}. */
  @Command(
      name = "dequeue",
      description = {
        "Take a pull out of the merge queue.",
        "It deletes your dev.knotless.queue records naming it; exit 1 when there were none."
      })
  static final class Dequeue extends KnotlessCommand {
    @Parameters(paramLabel = "<pull>", description = "the pull, at://<did>/dev.knotless.pull/<key>")
    String pull;

    @Override
    public Integer call() throws Exception {
      return QueueCommand.dequeue(pull, ctx());
    }
  }
}
