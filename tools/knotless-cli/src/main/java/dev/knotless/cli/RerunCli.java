package dev.knotless.cli;

import dev.knotless.storage.cli.RerunCommand;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless rerun}. */
@Command(
    name = "rerun",
    description = {
      "Ask the repository's runners to run a ref or a pull again.",
      "They do at their next pass.",
      "Name one of --ref or --pull. A ref without refs/ is a branch."
    })
final class RerunCli extends KnotlessCommand {
  @Parameters(paramLabel = "<url>", description = "<handle or did>/<name>")
  String url;

  @Option(names = "--ref", paramLabel = "<ref>", description = "the ref to run")
  String ref;

  @Option(
      names = "--pull",
      paramLabel = "<at-uri>",
      description = "the pull to run, at://<did>/dev.knotless.pull/<key>")
  String pull;

  @Option(
      names = "--workflow",
      paramLabel = "<name>",
      description = "only this workflow (default every one)")
  String workflow;

  @Option(
      names = "--var",
      paramLabel = "NAME=VALUE",
      description = "a variable of the run (repeatable; needs --ref and --workflow)")
  List<String> vars = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    return RerunCommand.run(url, ref, pull, workflow, vars, ctx());
  }
}
