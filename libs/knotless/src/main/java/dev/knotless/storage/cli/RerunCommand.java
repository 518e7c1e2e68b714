package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code knotless rerun <url> --ref R [--workflow W] [--var K=V ...]}, or {@code knotless rerun
 * <url> --pull <at-uri> [--workflow W]}: writes a {@code dev.knotless.rerun} record in the owner's
 * account, keyed {@code <repo key>.<tid>}, which the repository's runners act on at their next
 * pass. A pull asked for runs where it is then, once, even if it is not trusted. A ref without
 * {@code refs/} is a branch. Variable names are checked by the runner, which files an error check
 * naming the bad ones; here only the {@code K=V} shape is checked.
 */
public final class RerunCommand {
  /** The collection rerun requests are written to. */
  public static final String COLLECTION = "dev.knotless.rerun";

  private RerunCommand() {}

  /**
   * Asks {@code url}'s runners to run {@code ref} or {@code pull} (exactly one), every workflow or
   * {@code workflow}, with {@code vars} ({@code NAME=VALUE}, only with a ref and a workflow).
   *
   * @return the exit code
   */
  public static int run(
      String url, String ref, String pull, String workflow, List<String> varArgs, CliContext ctx)
      throws IOException {
    boolean hasRef = ref != null && !ref.isBlank();
    boolean hasPull = pull != null && !pull.isBlank();
    if (hasRef == hasPull) {
      throw new UsageException("name one of --ref <ref> or --pull <at-uri>");
    }
    if (hasPull && !pull.matches("at://[^/]+/dev\\.knotless\\.pull/[^/]+")) {
      throw new UsageException(
          "--pull " + pull + ": expected a pull's AT-URI, at://<did>/dev.knotless.pull/<key>");
    }
    Map<String, String> vars = vars(varArgs);
    if (!vars.isEmpty() && (workflow == null || hasPull)) {
      throw new UsageException(
          "--var needs --workflow and --ref: variables go to a run asked for by name at a ref");
    }
    KnotlessRepos repos = ctx.repos();
    RepoAddress repo = repos.locate(OwnerUrls.parse(url));
    Snapshot snap = repos.snapshots(repos.reader(repo)).read(repo, SnapshotReader.Packs.NONE);
    if (!snap.exists()) {
      throw new IOException("no repository " + repo.name() + " in " + repo.owner() + "'s account");
    }
    ObjectNode value =
        hasPull
            ? pullRecord(snap.repo().key(), pull, workflow, Instant.now())
            : record(snap.repo().key(), fullRef(ref), workflow, vars, Instant.now());
    String rkey = snap.repo().key() + "." + Tid.next();
    XrpcClient owner = repos.writer(repo);
    owner.putRecord(repo.did(), COLLECTION, rkey, value, Swap.none());
    String what =
        hasPull
            ? (workflow == null ? "every workflow of pull " : workflow + " of pull ") + pull
            : describe(fullRef(ref), workflow);
    ctx.out().println("asked " + repo.url() + " to run " + what);
    return 0;
  }

  /** The record's value for a pull asked for (all its workflows, or one), as rerun.json has it. */
  public static ObjectNode pullRecord(
      String repoKey, String pullUri, String workflow, Instant now) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("repo", repoKey);
    n.put("pull", pullUri);
    if (workflow != null) {
      n.put("workflow", workflow);
    }
    n.put("createdAt", now.toString());
    return n;
  }

  /** The record's value, as lexicons/dev/knotless/rerun.json has it. */
  public static ObjectNode record(
      String repoKey, String ref, String workflow, Map<String, String> vars, Instant now) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("repo", repoKey);
    n.put("ref", ref);
    if (workflow != null) {
      n.put("workflow", workflow);
    }
    if (!vars.isEmpty()) {
      ObjectNode v = n.putObject("vars");
      vars.forEach(v::put);
    }
    n.put("createdAt", now.toString());
    return n;
  }

  static String fullRef(String ref) {
    return ref.startsWith("refs/") ? ref : "refs/heads/" + ref;
  }

  /** Parses {@code K=V} arguments; a later one for the same name wins. */
  static Map<String, String> vars(List<String> args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("--var expects NAME=VALUE, got " + a);
      }
      out.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return out;
  }

  private static String describe(String ref, String workflow) {
    return workflow == null ? "every workflow at " + ref : workflow + " at " + ref;
  }
}
