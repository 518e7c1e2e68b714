package dev.knotless.cli;

import dev.knotless.atproto.Json;
import dev.knotless.cli.workflows.Askable;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.KnotlessUrl;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code knotless workflows}: what may be asked for by name at a ref. */
@Command(
    name = "workflows",
    description = {
      "List the workflows that may be asked for by name at a ref.",
      "Read from the ref's commit as the runner reads it: a workflow that runs on a push to the"
          + " ref, or whose on.asked.refs matches it. Each is shown with its variables (its env,"
          + " which knotless rerun --var may replace). Workflows that do not load are named too."
    })
final class WorkflowsCli extends KnotlessCommand {
  @Parameters(paramLabel = "<repo>", description = "<handle or did>/<name>")
  String url;

  @Option(
      names = "--ref",
      paramLabel = "<ref>",
      description = "the ref, a branch or a full ref; default the default branch")
  String ref;

  @Option(names = "--json", description = "print the ref, its commit and the workflows as JSON")
  boolean json;

  @Override
  public Integer call() throws IOException {
    KnotlessRepos repos = ctx().repos();
    RepoAddress at =
        repos.locate(
            KnotlessUrl.parse(url.startsWith(KnotlessUrl.SCHEME) ? url : KnotlessUrl.SCHEME + url));
    Snapshot snap = repos.snapshots(repos.reader(at)).read(at, SnapshotReader.Packs.NONE);
    if (!snap.exists()) {
      throw new IOException("no repository " + at.name() + " in " + at.owner() + "'s account");
    }
    String full =
        ref != null
            ? ChecksCli.fullRef(ref)
            : snap.headRef()
                .orElseThrow(
                    () -> new IOException(at.url() + " has no default branch yet; give --ref"));
    RefRecord r = snap.liveRefs().get(full);
    if (r == null) {
      throw new IOException(at.url() + " has no ref " + full);
    }
    Mirror mirror = repos.mirror(at, snap.key().orElseThrow());
    mirror.sync(snap, repos.fetcher(repos.reader(at)));
    WorkflowSet set = CommitFiles.workflowSet(mirror.git(), r.target());
    if (json) {
      ctx().out().println(Json.text(Askable.json(set, full, r.target())));
    } else {
      ctx().out().println(full + " at " + r.target());
      ctx().out().print(Askable.text(set, full));
    }
    return 0;
  }
}
