package dev.knotless.cli;

import dev.knotless.storage.cli.LoginCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless login}. */
@Command(
    name = "login",
    description = {
      "Log in and keep the session for git and the other commands.",
      "By default with OAuth: it prints an address to open in a browser, where the account's",
      "PDS asks you to sign in and allow knotless, then comes back to 127.0.0.1.",
      "With --app-password (or KNOTLESS_PASSWORD set) it logs in with an app password, taken",
      "from KNOTLESS_PASSWORD or the terminal, never from an argument."
    })
final class LoginCli extends KnotlessCommand {
  @Parameters(
      arity = "0..1",
      paramLabel = "<handle or did>",
      description = "the account (default KNOTLESS_IDENTIFIER)")
  String account;

  @Option(names = "--app-password", description = "log in with an app password, not OAuth")
  boolean appPassword;

  @Override
  public Integer call() throws Exception {
    return LoginCommand.run(account, appPassword, ctx());
  }

  /** {@code knotless logout}. */
  @Command(
      name = "logout",
      description = {
        "End a login: revoke an OAuth session and forget it here.",
        "An OAuth session is revoked at the account's authorization server, after which its",
        "tokens are refused; an app-password session is only forgotten here."
      })
  static final class Logout extends KnotlessCommand {
    @Parameters(
        arity = "0..1",
        paramLabel = "<handle or did>",
        description = "the account (default: the one knotless login logged in)")
    String account;

    @Override
    public Integer call() throws Exception {
      return LoginCommand.logout(account, ctx());
    }
  }
}
