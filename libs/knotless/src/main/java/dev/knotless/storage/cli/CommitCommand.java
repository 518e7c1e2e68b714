package dev.knotless.storage.cli;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.KnotlessUrl;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.commit.Change;
import dev.knotless.storage.commit.CommitBuilder;
import dev.knotless.storage.commit.Retries;
import dev.knotless.storage.git.Git;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code knotless repo commit <url> --branch B -m MSG --put PATH=FILE --delete PATH}: commits
 * without a checkout and pushes, replaying on the new tip after a lost race.
 */
public final class CommitCommand implements Command {
  @Override
  public List<String> words() {
    return List.of("repo", "commit");
  }

  @Override
  public String usage() {
    return "repo commit knotless://<owner>/<name> --branch <b> -m <message>"
        + " [--put <path>=<file>] [--put-exec <path>=<file>] [--delete <path>]"
        + " [--base <commit>] [--retries <n>] [--author 'Name <email>']";
  }

  @Override
  public int run(List<String> argv, CliContext ctx) throws IOException {
    Args args =
        Args.parse(
            argv,
            Set.of(
                "--branch",
                "-m",
                "--put",
                "--put-exec",
                "--delete",
                "--base",
                "--retries",
                "--author"),
            Set.of());
    KnotlessUrl url = KnotlessUrl.parse(args.one("repository URL"));
    String branch = args.value("--branch");
    if (branch == null) {
      throw new UsageException("--branch is required");
    }
    List<Change> changes = new ArrayList<>();
    for (String p : args.values("--put")) {
      changes.add(put(p, false));
    }
    for (String p : args.values("--put-exec")) {
      changes.add(put(p, true));
    }
    for (String d : args.values("--delete")) {
      changes.add(new Change.Delete(d));
    }
    int retries = Retries.DEFAULT_RETRIES;
    if (args.value("--retries") != null) {
      try {
        retries = Integer.parseInt(args.value("--retries"));
      } catch (NumberFormatException e) {
        throw new UsageException("--retries must be a whole number: " + args.value("--retries"));
      }
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(url);
    XrpcClient writer = repos.writer(repo);
    CommitBuilder.Author author = author(args.value("--author"), writer, repo);
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
                repo, branch, changes, args.value("-m"), args.value("--base"), author, retries));
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
