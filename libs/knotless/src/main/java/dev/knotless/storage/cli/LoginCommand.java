package dev.knotless.storage.cli;

import dev.knotless.atproto.Session;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.KnotlessRepos;
import java.io.Console;
import java.io.IOException;

/**
 * {@code knotless login <handle or did>}: logs in and saves the session for the helper and the
 * other commands, naming the account as this person's ({@link KnotlessRepos#self}). The password
 * comes from {@code KNOTLESS_PASSWORD} or the terminal, never from an argument.
 */
public final class LoginCommand {
  private LoginCommand() {}

  /**
   * Logs in as {@code account}, or as {@code KNOTLESS_IDENTIFIER} when it is null.
   *
   * @return the exit code
   */
  public static int run(String account, CliContext ctx) throws IOException {
    String who = account == null ? ctx.env().get("KNOTLESS_IDENTIFIER") : account;
    if (who == null || who.isBlank()) {
      throw new UsageException("name the account: knotless login <handle or did>");
    }
    String password = ctx.env().get("KNOTLESS_PASSWORD");
    if (password == null || password.isEmpty()) {
      Console console = System.console();
      if (console == null) {
        throw new IOException("no terminal to ask for the password: set KNOTLESS_PASSWORD");
      }
      char[] typed = console.readPassword("App password for %s: ", who);
      password = typed == null ? "" : new String(typed);
    }
    KnotlessRepos repos = ctx.repos();
    Identity id = IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local()).resolve(who);
    XrpcClient client = XrpcClient.create(id.pds());
    Session s = client.login(id.did(), password);
    // Named as this person's account: commands writing in their own account write there.
    repos.sessions().writeLogin(s.did(), KnotlessRepos.sessionJson(s));
    ctx.out().println("logged in as " + (s.handle() != null ? s.handle() : s.did()));
    return 0;
  }
}
