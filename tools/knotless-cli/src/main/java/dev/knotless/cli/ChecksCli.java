package dev.knotless.cli;

import dev.knotless.storage.cli.ChecksCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless checks}. */
@Command(
    name = "checks",
    description = {
      "Show the checks of the runners the repository names.",
      "They are read from the runners' own accounts; checks by accounts the repository",
      "does not name are never read."
    })
final class ChecksCli extends Owned {
  @Parameters(paramLabel = "<url>", description = "<handle or did>/<name>")
  String url;

  @Option(
      names = "--ref",
      paramLabel = "<ref>",
      description = "only this ref: a branch name or a full ref such as refs/heads/main")
  String ref;

  @Override
  public Integer call() throws Exception {
    return ChecksCommand.run(url, ref, ctx());
  }
}
