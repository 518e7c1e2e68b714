package dev.knotless.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.knotless.atproto.Json;
import dev.knotless.cli.checks.CheckEntry;
import dev.knotless.cli.checks.CheckFormat;
import dev.knotless.cli.checks.CheckSelection;
import dev.knotless.cli.checks.CheckSource;
import dev.knotless.storage.cli.UsageException;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless checks}: a repository's checks, newest first. */
@Command(
    name = "checks",
    description = {
      "Show a repository's checks, newest first.",
      "Each with when it started and how long it took. They are read from the runners' own accounts (their repos in the space, for a private"
          + " repository); checks by accounts the repository does not"
          + " name are never read. The CHECK column is the name knotless check and knotless log"
          + " take."
    })
final class ChecksCli extends KnotlessCommand {
  @Parameters(paramLabel = "<repo>", description = "<handle or did>/<name>")
  String url;

  @Option(
      names = "--ref",
      paramLabel = "<ref>",
      description = "only this ref: a branch name or a full ref such as refs/heads/main")
  String ref;

  @Option(names = "--workflow", paramLabel = "<name>", description = "only this workflow")
  String workflow;

  @Option(
      names = "--status",
      paramLabel = "<status>",
      description =
          "only checks with this status: queued, running, success, failure, error or cancelled")
  String status;

  @Option(
      names = "--limit",
      paramLabel = "<n>",
      defaultValue = "50",
      description = "show at most this many, newest first; default ${DEFAULT-VALUE}")
  int limit;

  @Option(
      names = "--json",
      description =
          "print a JSON array: each check's uri, cid, runner, rkey and its record as read")
  boolean json;

  @Mixin ColorOption color;

  @Override
  public Integer call() throws Exception {
    if (limit < 1) {
      throw new UsageException("--limit must be 1 or more, not " + limit);
    }
    String wanted;
    try {
      wanted = status == null ? null : CheckSelection.status(status);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    String full = fullRef(ref);
    CheckSource source = new CheckSource(ctx().repos(), ctx().env());
    CheckSource.Repo repo = source.repo(url);
    List<CheckEntry> all = repo.runners().isEmpty() ? List.of() : source.checks(repo, full);
    List<CheckEntry> shown = CheckSelection.filter(all, full, workflow, wanted, limit);
    if (json) {
      ArrayNode a = Json.nodes().arrayNode();
      shown.forEach(c -> a.add(c.toJson()));
      ctx().out().println(Json.text(a));
      return 0;
    }
    if (repo.runners().isEmpty()) {
      ctx()
          .out()
          .println(repo.address().url() + " names no runners: knotless runners <repo> add <did>");
    } else if (shown.isEmpty()) {
      ctx().out().println(all.isEmpty() ? "no checks yet" : "no checks match");
    } else {
      ctx().out().print(CheckFormat.list(shown, all, Instant.now(), color.colors(ctx().env())));
    }
    return 0;
  }

  /** A branch name as its full ref; a full ref as it is; null for none. */
  static String fullRef(String ref) {
    if (ref == null) {
      return null;
    }
    if (ref.isBlank()) {
      throw new UsageException("--ref needs a branch name or a full ref");
    }
    return ref.startsWith("refs/") ? ref : "refs/heads/" + ref;
  }
}
