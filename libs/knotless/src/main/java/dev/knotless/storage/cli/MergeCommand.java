package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.gate.MergeGate;
import dev.knotless.runner.gate.MergeGate.Decision;
import dev.knotless.runner.gate.MergeGate.Verdict;
import dev.knotless.runner.pull.PullState;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.storage.merge.PullReader.Reading;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.RefUpdate;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * {@code knotless merge <pull> [--check | --wait | --force]}: merges a pull into its base branch
 * once the merge gate passes (runner.md, "The merge gate"; docs/merge.md), pushing the very commit
 * the runners checked: the head for a fast-forward, else {@link MergeCommits}' merge commit. The
 * push refuses if the base moved since the gate was read. A merged pull gets a {@code merged} state
 * in the owner's account.
 *
 * <p>Exit codes: 0 merged (or, with {@code --check}, passed); 1 not merged (failed, conflicts, not
 * open, the base moved, not the owner); 2 usage; 3 not merged because checks are still running or
 * pending (or, with {@code --check}, running or pending).
 */
public final class MergeCommand {

  /** The exit code of a gate still running or pending. */
  public static final int NOT_YET = 3;

  private MergeCommand() {}

  /**
   * How to merge.
   *
   * @param pull the pull's AT-URI
   * @param check only read the gate
   * @param waitForGate wait for a gate still running or pending
   * @param force merge without reading the gate (the owner's alone)
   * @param every how often {@code --wait} reads the gate again, seconds
   * @param timeout how long {@code --wait} waits, seconds
   */
  public record Options(
      String pull, boolean check, boolean waitForGate, boolean force, long every, long timeout) {}

  /** Merges, or with {@code check} reads the gate; returns the exit code (see the class). */
  public static int run(Options o, CliContext ctx) throws IOException {
    String uri = o.pull();
    if (!uri.matches("at://[^/]+/dev\\.knotless\\.pull/[^/]+")) {
      throw new UsageException(
          uri + ": expected a pull's AT-URI, at://<did>/dev.knotless.pull/<key>");
    }
    boolean check = o.check();
    boolean force = o.force();
    boolean wait = o.waitForGate();
    if ((check ? 1 : 0) + (force ? 1 : 0) + (wait ? 1 : 0) > 1) {
      throw new UsageException("--check, --force and --wait do not go together");
    }
    Duration every = seconds(o.every(), "--every");
    Duration timeout = seconds(o.timeout(), "--timeout");
    KnotlessRepos repos = ctx.repos();
    PullReader reader =
        new PullReader(repos, IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local()));

    Reading r = reader.read(uri);
    if (check) {
      Decision d = gate(reader, r);
      print(ctx, r, d);
      return d.verdict() == Verdict.PASSED ? 0 : d.verdict() == Verdict.FAILED ? 1 : NOT_YET;
    }
    if (!r.state().equals("open")) {
      ctx.err().println("not merged: " + uri + " is " + r.state());
      return 1;
    }
    if (r.pull().draft()) {
      // A draft is checked like any pull, so its author sees the gate, but it does not merge.
      ctx.err().println("not merged: " + uri + " is a draft; its author marks it ready first");
      return 1;
    }
    XrpcClient owner;
    try {
      owner = repos.writer(r.repo());
    } catch (IOException e) {
      ctx.err()
          .println(
              "not merged: "
                  + (force ? "--force is the owner's alone: " : "only the owner merges here: ")
                  + e.getMessage());
      return 1;
    }
    Instant deadline = Instant.now().plus(timeout);
    boolean asked = false;
    while (true) {
      if (r.merged() instanceof MergeCommits.Conflict c) {
        ctx.err()
            .println(
                "not merged: the head conflicts with "
                    + r.pull().base().ref()
                    + " in "
                    + String.join(", ", c.files())
                    + ": merge the base into the head, or rebase it, and push");
        return 1;
      }
      if (force || r.runners().isEmpty()) {
        break;
      }
      Decision d = gate(reader, r);
      if (d.verdict() == Verdict.PASSED) {
        break;
      }
      if (d.verdict() == Verdict.FAILED || !wait || Instant.now().isAfter(deadline)) {
        print(ctx, r, d);
        ctx.err()
            .println(
                "not merged: the gate "
                    + (d.verdict() == Verdict.FAILED
                        ? "failed"
                        : "is " + d.verdict().word() + (wait ? " after --timeout" : ""))
                    + (d.verdict() == Verdict.FAILED || wait ? "" : "; --wait waits for it"));
        return d.verdict() == Verdict.FAILED ? 1 : NOT_YET;
      }
      if (d.verdict() == Verdict.PENDING && !asked) {
        // A runner started after the pull last moved, or one that does not trust its author,
        // has not run it: ask once, as knotless rerun --pull does.
        String rkey = r.repoKey() + "." + Tid.next();
        owner.putRecord(
            r.repo().did(),
            RerunCommand.COLLECTION,
            rkey,
            RerunCommand.pullRecord(r.repoKey(), uri, null, Instant.now()),
            Swap.none());
        asked = true;
        ctx.out().println("not checked yet: asked the runners to run " + uri);
      }
      ctx.out().println(d.verdict().word() + ": waiting for " + pendingNames(d));
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the gate", e);
      }
      r = reader.read(uri);
      if (!r.state().equals("open")) {
        ctx.err().println("not merged: " + uri + " is " + r.state());
        return 1;
      }
    }
    return land(ctx, repos, owner, r, force);
  }

  /** Pushes the checked commit to the base branch, against the snapshot the gate was read with. */
  private static int land(
      CliContext ctx, KnotlessRepos repos, XrpcClient owner, Reading r, boolean force)
      throws IOException {
    MergeCommits.Checked c = (MergeCommits.Checked) r.merged();
    String baseRef = r.pull().base().ref();
    PushResult pushed =
        repos
            .pusher(owner)
            .push(r.snap(), r.mirror().git(), List.of(new RefUpdate(baseRef, c.commit(), false)));
    if (!pushed.allOk()) {
      String why =
          pushed.outcomes().stream()
              .filter(o -> !o.ok())
              .map(PushResult.Outcome::error)
              .findFirst()
              .orElse("refused");
      ctx.err()
          .println(
              "not merged: "
                  + baseRef
                  + " moved since the gate was read ("
                  + why
                  + "); run knotless merge again");
      return 1;
    }
    owner.putRecord(
        r.repo().did(),
        PullState.COLLECTION,
        r.repoKey() + "." + Tid.next(),
        mergedState(r.pull().uri(), Instant.now()),
        Swap.none());
    String how =
        c.merge()
            ? "a merge commit, the one the runners checked"
            : "a fast-forward: the head contains the base";
    String gate =
        r.runners().isEmpty()
            ? "; the repository names no runners, so no gate"
            : force ? "; --force: the gate was not read" : "";
    ctx.out()
        .println(
            "merged "
                + r.pull().uri()
                + " into "
                + baseRef
                + " at "
                + c.commit()
                + " ("
                + how
                + ")"
                + gate);
    return 0;
  }

  /**
   * The {@code dev.knotless.state} record a merge writes, as lexicons/dev/knotless/state.json has
   * it.
   */
  public static ObjectNode mergedState(String pullUri, Instant now) {
    ObjectNode state = JsonNodeFactory.instance.objectNode();
    state.put("pull", pullUri);
    state.put("state", "merged");
    state.put("createdAt", now.toString());
    return state;
  }

  private static Decision gate(PullReader reader, Reading r) throws IOException {
    Decision d =
        r.runners().isEmpty()
            ? MergeGate.decide(List.of(), List.of())
            : MergeGate.decide(r.workflows(), reader.checks(r));
    // A head that conflicts with the base has no commit to merge, whatever the checks say.
    return r.merged() instanceof MergeCommits.Conflict
        ? new Decision(Verdict.FAILED, d.parts())
        : d;
  }

  /** The gate's state, then one line per workflow. */
  static void print(CliContext ctx, Reading r, Decision d) {
    String at =
        r.merged() instanceof MergeCommits.Checked c
            ? (c.merge() ? "merge commit " : "the head ") + c.commit().substring(0, 12)
            : "no commit: the head conflicts with the base";
    ctx.out()
        .println(
            d.verdict().word()
                + ": "
                + r.pull().uri()
                + ", head "
                + r.head().substring(0, 12)
                + " into "
                + r.pull().base().ref()
                + " at "
                + r.base().substring(0, 12)
                + ", checked at "
                + at);
    if (r.runners().isEmpty()) {
      ctx.out().println("the repository names no runners: nothing gates a merge");
      return;
    }
    if (d.parts().isEmpty()) {
      ctx.out().println("no workflow runs on this pull");
      return;
    }
    int w = "WORKFLOW".length();
    for (MergeGate.Part p : d.parts()) {
      w = Math.max(w, p.workflow().length());
    }
    ctx.out().println(pad("WORKFLOW", w) + "  STATE    STATUS     RUNNER / NOTE");
    for (MergeGate.Part p : d.parts()) {
      String who = p.check() == null ? "" : p.check().runner() + "  " + p.check().note();
      ctx.out()
          .println(
              (pad(p.workflow(), w)
                      + "  "
                      + pad(p.verdict().word(), 7)
                      + "  "
                      + pad(p.status(), 9)
                      + "  "
                      + who)
                  .stripTrailing());
    }
  }

  private static String pendingNames(Decision d) {
    return String.join(
        ", ",
        d.parts().stream()
            .filter(p -> p.verdict() != Verdict.PASSED)
            .map(p -> p.workflow() + " (" + p.status() + ")")
            .toList());
  }

  private static String pad(String s, int w) {
    return s + " ".repeat(Math.max(0, w - s.length()));
  }

  private static Duration seconds(long n, String name) {
    if (n < 0) {
      throw new UsageException(name + " takes a whole number of seconds, 0 or more: " + n);
    }
    return Duration.ofSeconds(n);
  }
}
