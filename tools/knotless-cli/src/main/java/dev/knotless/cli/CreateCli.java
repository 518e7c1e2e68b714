package dev.knotless.cli;

import dev.knotless.storage.cli.CreateCommand;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless create}. */
@Command(
    name = "create",
    description = {
      "Make an empty repository.",
      "Its record names the runners given, none with --no-runner, and otherwise the one",
      "the appview names, as a first push does.",
      "With --private, its records go in a space of yours, its runners members of it."
    })
final class CreateCli extends KnotlessCommand {
  @Parameters(paramLabel = "<url>", description = "<handle or did>/<name>")
  String url;

  @Option(
      names = "--runner",
      paramLabel = "<did or handle>",
      description = "a runner whose checks count (repeatable)")
  List<String> runners = new ArrayList<>();

  @Option(names = "--no-runner", description = "name no runner")
  boolean noRunner;

  @Option(
      names = "--default-branch",
      paramLabel = "<name>",
      description = "the default branch (main)")
  String defaultBranch;

  @Option(
      names = "--private",
      description = "keep it in a space of yours that only its members read")
  boolean isPrivate;

  @Override
  public Integer call() throws Exception {
    return CreateCommand.run(url, runners, noRunner, defaultBranch, isPrivate, ctx());
  }
}
