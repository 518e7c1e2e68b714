package dev.knotless.cli;

import dev.knotless.storage.cli.SecretCommand;
import dev.knotless.storage.cli.UsageException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless secret set|list|rm}. */
@Command(
    name = "secret",
    description = {
      "Seal secrets to a runner's key, kept at the appview.",
      "The appview is KNOTLESS_APPVIEW.",
      "A value is read from standard input, never from an argument."
    },
    subcommands = {SecretCli.Set.class, SecretCli.Ls.class, SecretCli.Rm.class})
final class SecretCli extends KnotlessCommand {
  @Override
  public Integer call() {
    throw new UsageException("name what to do: set, list or rm");
  }

  @Command(name = "set", description = "Seal the value on standard input as <NAME>.")
  static final class Set extends KnotlessCommand {
    @Parameters(index = "0", paramLabel = "<url>", description = "<handle or did>/<name>")
    String url;

    @Parameters(index = "1", paramLabel = "<NAME>", description = "the secret's name")
    String name;

    @Option(names = "--runner", paramLabel = "<did>", description = "the runner it is sealed to")
    String runner;

    @Option(
        names = "--ref",
        paramLabel = "<glob>",
        description = "only runs of refs matching this (repeatable; default every ref)")
    List<String> refs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      return SecretCommand.set(url, name, runner, refs, ctx());
    }
  }

  @Command(name = "list", description = "List the secrets left for the repository.")
  static final class Ls extends KnotlessCommand {
    @Parameters(paramLabel = "<url>", description = "<handle or did>/<name>")
    String url;

    @Option(names = "--runner", paramLabel = "<did>", description = "only those of this runner")
    String runner;

    @Override
    public Integer call() throws Exception {
      return SecretCommand.list(url, runner, ctx());
    }
  }

  @Command(name = "rm", description = "Remove a secret sealed to a runner.")
  static final class Rm extends KnotlessCommand {
    @Parameters(index = "0", paramLabel = "<url>", description = "<handle or did>/<name>")
    String url;

    @Parameters(index = "1", paramLabel = "<NAME>", description = "the secret's name")
    String name;

    @Option(names = "--runner", paramLabel = "<did>", description = "the runner it is sealed to")
    String runner;

    @Override
    public Integer call() throws Exception {
      return SecretCommand.rm(url, name, runner, ctx());
    }
  }
}
