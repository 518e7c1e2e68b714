package dev.knotless.storage.cli;

import dev.knotless.atproto.Session;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.atproto.oauth.OAuthLogins;
import dev.knotless.storage.KnotlessRepos;
import java.io.Console;
import java.io.IOException;

/**
 * {@code knotless login <handle or did>}: logs in and saves the session for the helper and the
 * other commands, naming the account as this person's ({@link KnotlessRepos#self}). By default the
 * login is OAuth through a browser (the PDS's own sign-in page, back to a one-shot listener on
 * 127.0.0.1); with {@code --app-password}, or with {@code KNOTLESS_PASSWORD} set, it is an app
 * password from that variable or the terminal, never from an argument. It says which it made.
 */
public final class LoginCommand {
  private LoginCommand() {}

  /**
   * As {@link #run(String, boolean, CliContext)}, OAuth unless a password is in the environment.
   */
  public static int run(String account, CliContext ctx) throws IOException {
    return run(account, false, ctx);
  }

  /**
   * Logs in as {@code account}, or as {@code KNOTLESS_IDENTIFIER} when it is null.
   *
   * @param appPassword log in with an app password rather than OAuth
   * @return the exit code
   */
  public static int run(String account, boolean appPassword, CliContext ctx) throws IOException {
    String who = account == null ? ctx.env().get("KNOTLESS_IDENTIFIER") : account;
    if (who == null || who.isBlank()) {
      throw new UsageException("name the account: knotless login <handle or did>");
    }
    String password = ctx.env().get("KNOTLESS_PASSWORD");
    KnotlessRepos repos = ctx.repos();
    Identity id = IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local()).resolve(who);
    if (!appPassword && (password == null || password.isEmpty())) {
      OAuthLogins.viaBrowser(id, ctx.env(), repos.sessions(), ctx.err());
      ctx.out().println("logged in as " + id.displayName() + " with an OAuth session");
      return 0;
    }
    if (password == null || password.isEmpty()) {
      Console console = System.console();
      if (console == null) {
        throw new IOException("no terminal to ask for the password: set KNOTLESS_PASSWORD");
      }
      char[] typed = console.readPassword("App password for %s: ", who);
      password = typed == null ? "" : new String(typed);
    }
    XrpcClient client = XrpcClient.create(id.pds());
    Session s = client.login(id.did(), password);
    // Named as this person's account: commands writing in their own account write there.
    repos.sessions().writeLogin(s.did(), KnotlessRepos.sessionJson(s));
    ctx.out()
        .println(
            "logged in as "
                + (s.handle() != null ? s.handle() : s.did())
                + " with an app password");
    return 0;
  }

  /**
   * {@code knotless logout}: ends the login of {@code account} (default: this person's): an OAuth
   * session is revoked at its server, and any session is forgotten here.
   *
   * @return the exit code
   */
  public static int logout(String account, CliContext ctx) throws IOException {
    KnotlessRepos repos = ctx.repos();
    String who = account != null ? account : repos.self().orElse(null);
    if (who == null) {
      throw new UsageException("not logged in: nothing to log out of");
    }
    String did =
        who.startsWith("did:")
            ? who
            : IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local()).resolve(who).did();
    var oauth = OAuthLogins.saved(repos.sessions(), did);
    if (oauth.isPresent()) {
      try {
        OAuthLogins.logout(oauth.get(), repos.sessions(), ctx.env());
      } catch (IOException e) {
        throw new IOException(
            "forgot the OAuth session of "
                + who
                + " here, but could not end it at its server: "
                + e.getMessage(),
            e);
      }
      ctx.out().println("logged out of " + who + ": the OAuth session is revoked and forgotten");
      return 0;
    }
    if (repos.sessions().read(did).isEmpty()) {
      ctx.out().println("no session of " + who + " is saved here");
      return 0;
    }
    repos.sessions().remove(did);
    ctx.out().println("logged out of " + who + ": the app-password session is forgotten here");
    return 0;
  }
}
