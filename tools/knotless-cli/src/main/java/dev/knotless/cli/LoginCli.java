package dev.knotless.cli;

import dev.knotless.storage.cli.LoginCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code knotless login}. */
@Command(
    name = "login",
    description = {
      "Log in and keep the session for git and the other commands.",
      "The password comes from KNOTLESS_PASSWORD or the terminal, never from an argument."
    })
final class LoginCli extends KnotlessCommand {
  @Parameters(
      arity = "0..1",
      paramLabel = "<handle or did>",
      description = "the account (default KNOTLESS_IDENTIFIER)")
  String account;

  @Override
  public Integer call() throws Exception {
    return LoginCommand.run(account, ctx());
  }
}
