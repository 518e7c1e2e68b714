package dev.knotless.storage.cli;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.commit.Change;
import dev.knotless.storage.commit.CommitBuilder;
import dev.knotless.storage.git.Git;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code knotless repo commit <url> --branch B -m MSG --put PATH=FILE --delete PATH}: commits
 * without a checkout and pushes, replaying on the new tip after a lost race.
 */
public final class CommitCommand {
  private CommitCommand() {}

  /**
   * What to commit.
   *
   * @param url the repository
   * @param branch the branch to commit on
   * @param message the commit message, or null for the default
   * @param puts {@code <path in repo>=<local file>} to write
   * @param putExecs the same, written executable
   * @param deletes paths to delete
   * @param base the commit the change is made on, or null for the branch's tip
   * @param retries how often to replay on a new tip after a lost race
   * @param author {@code Name <email>}, or null for git's or the handle's
   */
  public record Options(
      String url,
      String branch,
      String message,
      List<String> puts,
      List<String> putExecs,
      List<String> deletes,
      String base,
      int retries,
      String author) {
    public Options {
      puts = List.copyOf(puts);
      putExecs = List.copyOf(putExecs);
      deletes = List.copyOf(deletes);
    }
  }

  /** Commits and pushes; returns the exit code. */
  public static int run(Options o, CliContext ctx) throws IOException {
    String branch = o.branch();
    if (branch == null || branch.isBlank()) {
      throw new UsageException("--branch is required");
    }
    if (o.retries() < 0) {
      throw new UsageException("--retries must be 0 or more: " + o.retries());
    }
    List<Change> changes = new ArrayList<>();
    for (String p : o.puts()) {
      changes.add(put(p, false));
    }
    for (String p : o.putExecs()) {
      changes.add(put(p, true));
    }
    for (String d : o.deletes()) {
      changes.add(new Change.Delete(d));
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(o.url()));
    XrpcClient writer = repos.writer(repo);
    CommitBuilder.Author author = author(o.author(), writer, repo);
    CommitBuilder builder =
        new CommitBuilder(
            repos.snapshots(writer),
            repos.fetcher(writer),
            repos.pusher(writer),
            repos.cache(),
            new SecureRandom(),
            d -> Thread.sleep(d.toMillis()));
    CommitBuilder.Result r =
        builder.commit(
            new CommitBuilder.Request(
                repo, branch, changes, o.message(), o.base(), author, o.retries()));
    ctx.out().println(r.commit().map(c -> c + " " + branch).orElse("nothing to commit: no change"));
    return 0;
  }

  private static Change put(String spec, boolean exec) throws IOException {
    int eq = spec.indexOf('=');
    if (eq <= 0 || eq == spec.length() - 1) {
      throw new UsageException("--put takes <path in repo>=<local file>: " + spec);
    }
    Path file = Path.of(spec.substring(eq + 1));
    if (!Files.isRegularFile(file)) {
      throw new IOException("no such file to put: " + file);
    }
    return new Change.Put(spec.substring(0, eq), Files.readAllBytes(file), exec);
  }

  /** As given, else whom git commits as here, else the handle at knotless.invalid. */
  private static CommitBuilder.Author author(String given, XrpcClient writer, RepoAddress repo)
      throws IOException {
    if (given != null) {
      int lt = given.indexOf('<');
      if (lt <= 0 || !given.endsWith(">")) {
        throw new UsageException("--author takes 'Name <email>': " + given);
      }
      return new CommitBuilder.Author(
          given.substring(0, lt).strip(), given.substring(lt + 1, given.length() - 1));
    }
    Git git = Git.at(Path.of(".git"));
    Git.Result name = git.exec(null, List.of("config", "--global", "user.name"));
    Git.Result email = git.exec(null, List.of("config", "--global", "user.email"));
    if (name.exitCode() == 0 && email.exitCode() == 0) {
      return new CommitBuilder.Author(name.out().strip(), email.out().strip());
    }
    String handle = writer.session().map(s -> s.handle()).orElse(repo.owner());
    return new CommitBuilder.Author(handle, repo.did() + "@knotless.invalid");
  }
}
