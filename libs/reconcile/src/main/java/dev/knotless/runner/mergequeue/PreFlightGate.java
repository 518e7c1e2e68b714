package dev.knotless.runner.mergequeue;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.pass.HeadRepos;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.queue.PreFlights;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queued pull's pre-flights ({@code queue: first} workflows; {@link PreFlights}), before it goes
 * into a batch: reads their checks at the pull's head from this runner and the runners the
 * repository names, and runs on the pull itself, as a pull's run, those that have none started or
 * passed. The pre-flights are those of the commit the pull's own run checks (its head merged with
 * the base tip). Thread-safe.
 */
final class PreFlightGate {

  private static final Logger LOG = LoggerFactory.getLogger(PreFlightGate.class);

  private final String runnerDid;
  private final XrpcClient runner;
  private final QueuePass.Accounts accounts;
  private final HeadRepos heads;
  private final PullPass pulls;
  // The last pulls' pre-flights, by head, base, branch and pull; the oldest go first.
  private final Map<String, Named> seen =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Named> eldest) {
          return size() > 512;
        }
      };

  PreFlightGate(XrpcClient runner, QueuePass.Accounts accounts, HeadRepos heads, PullPass pulls) {
    this.runnerDid = runner.did();
    this.runner = runner;
    this.accounts = accounts;
    this.heads = heads;
    this.pulls = pulls;
  }

  /**
   * Whether the pull may go into a batch now; if not, runs what of its pre-flights is due here.
   *
   * @param paused the owners whose runs are paused, as the pass read them
   */
  boolean ready(Watched repo, Snapshot snap, Mirror mirror, PullPass.Found f, PausedOwners paused)
      throws IOException {
    String head = f.at().head();
    String baseRef = f.pull().base().ref();
    if (f.headRepo() != snap && !mirror.git().has(head)) {
      mirror.fetch(f.headRepo(), heads.fetcher(f.pull().head().did()), List.of(head));
    }
    Named named = named(mirror, f);
    if (named.preflights().isEmpty()) {
      return true; // none, or a conflict, which stacking finds and ejects the pull for
    }
    List<String> preflights = named.preflights();
    Set<String> runsHere = named.runsHere();
    PreFlights.Verdict v = PreFlights.judge(preflights, runsHere, newest(repo, snap, f));
    if (v instanceof PreFlights.Ready) {
      return true;
    }
    if (v instanceof PreFlights.Failed failed) {
      LOG.debug(
          "{}: {} stays out of the merge queue: its pre-flight {} is {} at {}",
          repo.label(),
          f.pull().uri(),
          failed.workflow(),
          failed.status().wire(),
          head.substring(0, 12));
      return false;
    }
    List<String> toRun = ((PreFlights.Waiting) v).toRun();
    if (!toRun.isEmpty()) {
      LOG.info(
          "{}: {} is queued; its pre-flights {} run on it at {} before it goes into a batch",
          repo.label(),
          f.pull().uri(),
          toRun,
          head.substring(0, 12));
      List<String> others = others(snap);
      pulls.runOnly(
          repo,
          mirror,
          snap,
          f,
          new LinkedHashSet<>(toRun),
          paused,
          run -> others.isEmpty() ? run : withdrawnIfElsewhere(run, others));
    }
    return false;
  }

  /** A pull's pre-flights at its head and base, and those this runner runs. */
  private record Named(List<String> preflights, Set<String> runsHere) {}

  /**
   * The pre-flights of the commit the pull's run checks. Kept for the last heads and bases seen,
   * since a pass reads every queued pull and most stand where they stood at the pass before.
   */
  private Named named(Mirror mirror, PullPass.Found f) throws IOException {
    String head = f.at().head();
    String baseRef = f.pull().base().ref();
    String key = head + " " + f.at().base() + " " + baseRef + " " + f.pull().uri();
    synchronized (seen) {
      Named was = seen.get(key);
      if (was != null) {
        return was;
      }
    }
    MergeCommits.Merged merged =
        MergeCommits.merge(
            mirror.git(), head, f.at().base(), f.pull().head().ref(), baseRef, f.pull().uri());
    List<String> preflights = new ArrayList<>();
    Set<String> runsHere = new LinkedHashSet<>();
    if (merged instanceof MergeCommits.Checked checked) {
      for (Workflow w : CommitFiles.workflowSet(mirror.git(), checked.commit()).workflows()) {
        if (w.preflight() && w.runsOnPullInto(baseRef)) {
          preflights.add(w.name());
          if (w.runsOnRunner(runnerDid)) {
            runsHere.add(w.name());
          }
        }
      }
    }
    Named out = new Named(List.copyOf(preflights), Set.copyOf(runsHere));
    synchronized (seen) {
      seen.put(key, out);
    }
    return out;
  }

  /** The runners the repository names, this one left out. */
  private List<String> others(Snapshot snap) {
    List<String> out = new ArrayList<>();
    snap.repo()
        .raw()
        .path("runners")
        .forEach(
            n -> {
              if (!n.asText().equals(runnerDid) && !out.contains(n.asText())) {
                out.add(n.asText());
              }
            });
    return out;
  }

  /**
   * The pre-flight's run, made not to run (its check deleted) if, once it has its job, one of
   * {@code others} has started or passed the same check: the same pull, head, base and workflow.
   */
  PlannedRun withdrawnIfElsewhere(PlannedRun run, List<String> others) {
    PlannedRun.Preparer own = run.prepare();
    PlannedRun.Preparer prepare =
        new PlannedRun.Preparer() {
          @Override
          public dev.knotless.runner.exec.RunSpec prepare() throws PlannedRun.PrepareException {
            return own.prepare();
          }

          @Override
          public dev.knotless.runner.exec.AfterSteps afterSteps() {
            return own.afterSteps();
          }

          @Override
          public Optional<String> elsewhere() {
            return startedElsewhere(run.rkey(), others);
          }
        };
    return new PlannedRun(
        run.label(), run.request(), run.check(), prepare, run.order(), run.keep());
  }

  private Optional<String> startedElsewhere(String rkey, List<String> others) {
    for (String did : others) {
      Optional<Record> r;
      try {
        r = accounts.of(did).findRecord(did, CheckRecord.COLLECTION, rkey);
      } catch (IOException e) {
        LOG.warn("pre-flight {}: runner {}'s check not read: {}", rkey, did, e.getMessage());
        continue;
      }
      if (r.isEmpty()) {
        continue;
      }
      CheckStatus s;
      try {
        s = CheckRecord.fromJson(r.get().value()).status();
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (s == CheckStatus.RUNNING || s == CheckStatus.SUCCESS) {
        return Optional.of(
            "runner "
                + did
                + ", which the repository names, has "
                + (s == CheckStatus.RUNNING ? "started" : "passed")
                + " it at the same head and base");
      }
    }
    return Optional.empty();
  }

  /**
   * The newest check of each workflow at the pull's head, whatever its base, among this runner's
   * and those of the runners the repository names: by {@code createdAt}, then by the runner's DID.
   */
  private Map<String, CheckStatus> newest(Watched repo, Snapshot snap, PullPass.Found f)
      throws IOException {
    Set<String> dids = new LinkedHashSet<>();
    dids.add(runnerDid);
    snap.repo().raw().path("runners").forEach(n -> dids.add(n.asText()));
    String prefix =
        CheckKeys.pullPrefix(repo.id().ownerDid(), repo.id().repoKey(), f.pull().uri())
            + f.at().head()
            + ".";
    Map<String, CheckRecord> best = new LinkedHashMap<>();
    Map<String, String> bestBy = new LinkedHashMap<>();
    for (String did : dids) {
      List<Record> records;
      try {
        records =
            PullReader.scan(
                did.equals(runnerDid) ? runner : accounts.of(did),
                did,
                CheckRecord.COLLECTION,
                prefix);
      } catch (IOException e) {
        // Another runner's PDS down: its checks do not count in this pass.
        if (did.equals(runnerDid)) {
          throw e;
        }
        LOG.warn("{}: checks of runner {} not read: {}", repo.label(), did, e.getMessage());
        continue;
      }
      for (Record r : records) {
        CheckRecord c;
        try {
          c = CheckRecord.fromJson(r.value());
        } catch (IllegalArgumentException e) {
          continue; // not a check this version reads: it counts as none
        }
        CheckRecord was = best.get(c.workflow());
        int order =
            was == null
                ? 1
                : c.createdAt().compareTo(was.createdAt()) != 0
                    ? c.createdAt().compareTo(was.createdAt())
                    : did.compareTo(bestBy.get(c.workflow()));
        if (order > 0) {
          best.put(c.workflow(), c);
          bestBy.put(c.workflow(), did);
        }
      }
    }
    Map<String, CheckStatus> out = new LinkedHashMap<>();
    // A check a start's sweep ended (its runner was killed mid-run) is no verdict, as a
    // cancelled one is not: the pre-flight is run again.
    best.forEach(
        (w, c) ->
            out.put(
                w,
                dev.knotless.runner.filing.CheckFiler.endedUnfinished(c)
                    ? CheckStatus.CANCELLED
                    : c.status()));
    return out;
  }
}
