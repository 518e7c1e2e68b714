package dev.knotless.cli;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.cli.account.DataDeleter;
import dev.knotless.cli.account.Inventory;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.cli.UsageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code knotless account}: what concerns your account as a whole. */
@Command(
    name = "account",
    description = "Act on your account's knotless data as a whole.",
    subcommands = {AccountCli.DeleteData.class})
final class AccountCli extends KnotlessCommand {
  @Override
  public Integer call() {
    throw new UsageException("name a subcommand: delete-data");
  }

  /** {@code knotless account delete-data}. */
  @Command(
      name = "delete-data",
      description = {
        "Delete every knotless record of your account.",
        "Every record in a dev.knotless.* collection that your PDS lists for the account goes;"
            + " the account itself and other apps' records stay. It says first what there is, each"
            + " collection's count and the repositories, marking those other accounts push to or"
            + " read, then asks. It deletes each repository as repo delete does, then what is left"
            + " a collection at a time, 100 records a write. A run cut short carries on when run"
            + " again. Exit codes: 0 deleted (or nothing to delete), 1 declined or failed."
      })
  static final class DeleteData extends KnotlessCommand {
    @Option(names = "--yes", description = "do not ask: delete it all (for scripts)")
    boolean yes;

    @Override
    public Integer call() throws IOException {
      KnotlessRepos repos = ctx().repos();
      String self =
          repos
              .self()
              .orElseThrow(
                  () ->
                      new IOException(
                          "whose data? log in first (knotless login <handle>) or set"
                              + " KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD"));
      // writer() needs only the account's DID and PDS; the name is never read.
      RepoAddress account = repos.locate(self, "account");
      XrpcClient client = repos.writer(account);
      DataDeleter deleter =
          new DataDeleter(
              client,
              account.did(),
              w -> client.applyWrites(account.did(), w),
              PrivateRepos.hostNamed(repos) ? PrivateRepos.client(repos, account, client) : null);
      Inventory there = deleter.inventory();
      ctx().out().print(there.describe());
      if (there.isEmpty()) {
        return 0;
      }
      if (!yes && !confirmed(self, there)) {
        ctx().err().println("knotless: nothing was deleted");
        return 1;
      }
      int n = deleter.deleteAll(ctx().out());
      ctx().out().println("deleted " + n + " knotless records of " + self);
      return 0;
    }

    private boolean confirmed(String self, Inventory there) throws IOException {
      int spaces = there.spaces().size();
      ctx()
          .out()
          .print(
              "Delete these "
                  + there.total()
                  + " records"
                  + (spaces == 0 ? "" : spaces == 1 ? " and 1 space" : " and " + spaces + " spaces")
                  + " of "
                  + self
                  + "? This cannot be undone. Type yes: ");
      ctx().out().flush();
      String answer =
          new BufferedReader(new InputStreamReader(ctx().in(), StandardCharsets.UTF_8)).readLine();
      return answer != null && answer.strip().equalsIgnoreCase("yes");
    }
  }
}
