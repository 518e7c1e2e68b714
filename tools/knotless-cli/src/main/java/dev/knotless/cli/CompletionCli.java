package dev.knotless.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code knotless completion}: a shell completion script made from the command tree. */
@Command(
    name = "completion",
    description = {
      "Print a shell completion script for knotless.",
      "It is generated from the commands and flags themselves. bash: source <(knotless"
          + " completion bash). zsh: source <(knotless completion zsh); the script loads zsh's"
          + " bashcompinit itself."
    })
final class CompletionCli extends KnotlessCommand {
  /** The shells there is a script for. */
  enum Shell {
    bash,
    zsh
  }

  @Parameters(paramLabel = "<shell>", description = "bash or zsh")
  Shell shell;

  @Override
  public Integer call() {
    // One script serves both: picocli's starts zsh's bash-compatible completion when run in zsh.
    ctx().out().print(AutoComplete.bash("knotless", spec.root().commandLine()));
    ctx().out().flush();
    return 0;
  }
}
