package dev.knotless.cli;

import dev.knotless.storage.cli.MergeCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless merge}. */
@Command(
    name = "merge",
    description = {
      "Merge a pull once the merge gate passes.",
      "It pushes the very commit the runners checked into the base branch.",
      "Exit 0 merged (or, with --check, passed), 1 not merged, 2 usage,",
      "3 not merged because checks are still running or pending."
    })
final class MergeCli extends KnotlessCommand {
  @Parameters(paramLabel = "<pull>", description = "the pull, at://<did>/dev.knotless.pull/<key>")
  String pull;

  @Option(names = "--check", description = "only read the gate")
  boolean check;

  @Option(names = "--wait", description = "wait for checks still running or pending")
  boolean waitForGate;

  @Option(names = "--force", description = "merge without reading the gate (the owner's alone)")
  boolean force;

  @Option(
      names = "--every",
      paramLabel = "<seconds>",
      description = "with --wait, read the gate this often (${DEFAULT-VALUE})")
  long every = 10;

  @Option(
      names = "--timeout",
      paramLabel = "<seconds>",
      description = "with --wait, give up after this long (${DEFAULT-VALUE})")
  long timeout = 3600;

  @Override
  public Integer call() throws Exception {
    return MergeCommand.run(
        new MergeCommand.Options(pull, check, waitForGate, force, every, timeout), ctx());
  }
}
