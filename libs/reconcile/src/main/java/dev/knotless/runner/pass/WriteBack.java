package dev.knotless.runner.pass;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.exec.AfterSteps;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.workflow.Glob;
import dev.knotless.storage.Settings;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.commit.Change;
import dev.knotless.storage.commit.CommitBuilder;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writing back: a run asked for by name whose {@code on.asked.commit} names globs, once it passes,
 * commits the files its steps changed among those globs on top of the commit it ran at, and pushes
 * that commit to the branch with the storage module's commit builder, never retried onto a moved
 * branch. It refuses the default branch, a protected branch (a repository record rule whose {@code
 * pattern} matches the branch, short or full name, with {@code protected: true}), a branch that
 * moved while the run went, and a repository the runner's account does not own (collaborators'
 * write-back through the gateway is not built); each refusal fails the check with {@code not
 * written back: <why>}. Thread-safe.
 */
public final class WriteBack {

  private static final Logger LOG = LoggerFactory.getLogger(WriteBack.class);

  /** How a refusal's failure begins; the job pool files a failure so begun as its own note. */
  public static final String NOT_WRITTEN_BACK = "not written back: ";

  /** Who the write-back commit is by. */
  public static final CommitBuilder.Author AUTHOR =
      new CommitBuilder.Author("knotless-run", "knotless-run@users.noreply.knotless.dev");

  private final XrpcClient runner;
  private final StorageCache cache;
  private final Clock clock;

  /**
   * @param runner the runner's own logged-in client: it writes back only to repositories of its own
   *     account
   */
  public WriteBack(XrpcClient runner, StorageCache cache, Clock clock) {
    this.runner = runner;
    this.cache = cache;
    this.clock = clock;
  }

  /**
   * The hook that writes back what a run at {@code commit} on {@code ref} changed in {@code globs}.
   */
  public AfterSteps hook(Watched repo, String ref, String commit, List<Glob> globs) {
    return (checkout, result) -> {
      if (!(result.outcome() instanceof RunOutcome.Passed)) {
        return result;
      }
      try {
        String line = writeBack(repo, ref, commit, globs, checkout);
        return withLine(result, "==> " + line, null);
      } catch (Refused e) {
        LOG.warn("{}: {} at {}: not written back: {}", repo.label(), ref, commit, e.getMessage());
        String why = NOT_WRITTEN_BACK + e.getMessage();
        return withLine(result, "==> " + why, new RunOutcome.Failed(why));
      }
    };
  }

  /** Why a write-back was refused; the message completes {@code not written back: }. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  private String writeBack(Watched repo, String ref, String commit, List<Glob> globs, Path checkout)
      throws Refused {
    List<Change> changes;
    try {
      Path mirrorDir = Mirror.location(cache.dir(), repo.id().ownerDid(), repo.id().repoKey());
      changes = changes(checkout, mirrorDir, commit, globs);
    } catch (IOException e) {
      throw new Refused("could not read what the run changed: " + e.getMessage());
    }
    if (changes.isEmpty()) {
      return "nothing to write back: no file matching on.asked.commit changed";
    }
    if (!ref.startsWith("refs/heads/")) {
      throw new Refused(ref + " is not a branch");
    }
    String branch = ref.substring("refs/heads/".length());
    if (!repo.id().ownerDid().equals(runner.did())) {
      throw new Refused("the runner's account does not write to " + repo.label());
    }
    SnapshotReader reader = new SnapshotReader(runner, cache, clock);
    Fetcher fetcher = new Fetcher(runner, cache, clock);
    try {
      Snapshot snap = reader.read(repo.address(), SnapshotReader.Packs.NONE);
      String defaultBranch = snap.repo().defaultBranchName().orElse("main");
      if (branch.equals(defaultBranch)) {
        throw new Refused(ref + " is the default branch");
      }
      if (isProtected(snap.repo().raw().path("rules"), branch)) {
        throw new Refused(ref + " is protected");
      }
      RefRecord tip = snap.liveRefs().get(ref);
      if (tip == null || !tip.target().equals(commit)) {
        throw new Refused(ref + " moved while the run went");
      }
      Mirror mirror = Mirror.open(cache.dir(), repo.id().ownerDid(), repo.id().repoKey());
      CommitBuilder builder =
          new CommitBuilder(
              reader,
              fetcher,
              new Pusher(runner, cache, clock, Settings.defaults().claimGrace()),
              cache,
              new Random(),
              d -> {});
      builder.listener(
          (attempt, made) -> {
            // The builder commits onto the tip it reads: only onto the commit the run checked.
            String parent = mirror.git().revParse(made + "^");
            if (!parent.equals(commit)) {
              throw new IOException(ref + " moved while the run went");
            }
          });
      CommitBuilder.Result r =
          builder.commit(
              new CommitBuilder.Request(
                  repo.address(),
                  branch,
                  changes,
                  "Write back from " + repo.label() + " at " + commit.substring(0, 12),
                  commit,
                  AUTHOR,
                  0));
      String landed = r.commit().orElse(commit);
      LOG.info("{}: wrote back {} files to {} as {}", repo.label(), changes.size(), ref, landed);
      return "wrote back " + changes.size() + " files to " + ref + " as " + landed;
    } catch (IOException e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      throw new Refused(m.contains("fetch first") ? ref + " moved while the run went" : m);
    }
  }

  /** Whether a rule with {@code protected: true} matches the branch, by short or full name. */
  static boolean isProtected(JsonNode rules, String branch) {
    for (JsonNode rule : rules) {
      if (!rule.path("protected").asBoolean(false) || !rule.path("pattern").isTextual()) {
        continue;
      }
      String p = rule.path("pattern").asText();
      try {
        Glob g = Glob.ref(p.startsWith("refs/") ? p : "refs/heads/" + p);
        if (g.matches("refs/heads/" + branch)) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        // A pattern this runner cannot read protects nothing it can name; it is logged.
        LOG.warn("rule pattern {} is not understood: {}", p, e.getMessage());
      }
    }
    return false;
  }

  /**
   * The files changed in the checkout since {@code commit} (in {@code mirror}) that match a glob:
   * puts and deletes. git never reads the checkout's own {@code .git}: see {@link CheckoutStatus}.
   */
  static List<Change> changes(Path checkout, Path mirror, String commit, List<Glob> globs)
      throws IOException {
    List<Change> out = new ArrayList<>();
    byte[] status = CheckoutStatus.porcelain(checkout, mirror, commit);
    String[] entries = new String(status, StandardCharsets.UTF_8).split("\0");
    for (String e : entries) {
      if (e.length() < 4) {
        continue;
      }
      String path = e.substring(3);
      if (globs.stream().noneMatch(g -> g.matches(path))) {
        continue;
      }
      Path file = checkout.resolve(path);
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        out.add(new Change.Delete(path));
      } else if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        out.add(new Change.Put(path, Files.readAllBytes(file), Files.isExecutable(file)));
      }
    }
    return out;
  }

  private static RunResult withLine(RunResult r, String line, RunOutcome outcome) {
    byte[] add = (line + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] log = new byte[r.log().length + add.length];
    System.arraycopy(r.log(), 0, log, 0, r.log().length);
    System.arraycopy(add, 0, log, r.log().length, add.length);
    return new RunResult(
        r.steps(), Optional.ofNullable(outcome).orElse(r.outcome()), log, r.outputs());
  }
}
