package dev.knotless.cli;

import dev.knotless.storage.cli.CommitCommand;
import dev.knotless.storage.cli.CompactCommand;
import dev.knotless.storage.cli.DeleteCommand;
import dev.knotless.storage.cli.RenameCommand;
import dev.knotless.storage.cli.UsageException;
import dev.knotless.storage.commit.Retries;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless repo compact}, {@code commit}, {@code rename} and {@code delete}. */
@Command(
    name = "repo",
    description = "Work on a repository's storage.",
    subcommands = {
      RepoCli.Compact.class,
      RepoCli.Commit.class,
      RepoCli.Rename.class,
      RepoCli.Delete.class
    })
final class RepoCli extends KnotlessCommand {
  @Override
  public Integer call() {
    throw new UsageException("name what to do: compact, commit, rename or delete");
  }

  @Command(
      name = "compact",
      description = "Fold old packs into one and prune old records (owner only).")
  static final class Compact extends KnotlessCommand {
    @Option(names = "--due", description = "only when enough packs have piled up")
    boolean due;

    @Parameters(paramLabel = "<url>", description = "knotless://<handle or did>/<name>")
    String url;

    @Override
    public Integer call() throws Exception {
      return CompactCommand.run(url, due, ctx());
    }
  }

  @Command(
      name = "commit",
      description = {
        "Commit without a checkout, and push.",
        "After a lost race, the change is made again on the new tip."
      })
  static final class Commit extends KnotlessCommand {
    @Parameters(paramLabel = "<url>", description = "knotless://<handle or did>/<name>")
    String url;

    @Option(names = "--branch", required = true, paramLabel = "<b>", description = "the branch")
    String branch;

    @Option(
        names = {"-m", "--message"},
        paramLabel = "<message>",
        description = "the commit message")
    String message;

    @Option(
        names = "--put",
        paramLabel = "<path>=<file>",
        description = "write a local file at a path (repeatable)")
    List<String> puts = new ArrayList<>();

    @Option(
        names = "--put-exec",
        paramLabel = "<path>=<file>",
        description = "the same, executable (repeatable)")
    List<String> putExecs = new ArrayList<>();

    @Option(names = "--delete", paramLabel = "<path>", description = "delete a path (repeatable)")
    List<String> deletes = new ArrayList<>();

    @Option(
        names = "--base",
        paramLabel = "<commit>",
        description = "make the change on this commit (default the branch's tip)")
    String base;

    @Option(
        names = "--retries",
        paramLabel = "<n>",
        description = "replays after a lost race (default ${DEFAULT-VALUE})")
    int retries = Retries.DEFAULT_RETRIES;

    @Option(
        names = "--author",
        paramLabel = "'Name <email>'",
        description = "the author (default git's user, else the handle)")
    String author;

    @Override
    public Integer call() throws Exception {
      return CommitCommand.run(
          new CommitCommand.Options(
              url, branch, message, puts, putExecs, deletes, base, retries, author),
          ctx());
    }
  }

  @Command(
      name = "rename",
      description = {
        "Rename a repository (owner only).",
        "The old name redirects to the new one, so clones, pushes and runners that use it",
        "keep working; older former names are repointed."
      })
  static final class Rename extends KnotlessCommand {
    @Parameters(index = "0", paramLabel = "<url>", description = "<handle or did>/<name>")
    String url;

    @Parameters(index = "1", paramLabel = "<new name>", description = "the new name")
    String newName;

    @Override
    public Integer call() throws Exception {
      return RenameCommand.run(url, newName, ctx());
    }
  }

  @Command(
      name = "delete",
      description = {
        "Delete a repository for good (owner only).",
        "Its refs, claims, packs and what you wrote about it go, then its record.",
        "Run it again if it was cut short."
      })
  static final class Delete extends KnotlessCommand {
    @Parameters(paramLabel = "<url>", description = "<handle or did>/<name>")
    String url;

    @Option(names = "--yes", description = "yes, delete it for good")
    boolean yes;

    @Override
    public Integer call() throws Exception {
      return DeleteCommand.run(url, yes, ctx());
    }
  }
}
