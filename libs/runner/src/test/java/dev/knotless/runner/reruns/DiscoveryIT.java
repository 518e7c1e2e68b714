package dev.knotless.runner.reruns;

import static dev.knotless.runner.reruns.Stage.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.secrets.DefaultRunner;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --discover} against the real PDS and the harness appview: repositories whose record names
 * the runner are watched without the operator listing them, and only those.
 */
@WithPds
class DiscoveryIT {

  static final String WF =
      """
      on: {push: {}}
      steps:
        - name: hello
          run: echo hello from $KNOTLESS_RUN_REPO
      """;

  @Test
  void aRepositoryMadeAfterTheRunnerStartedNamingItRunsItsFirstPushAndOneThatDropsItIsLeft(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      String runner = s.runnerAccount.did();
      appview.setDefaultRunner(runner);
      s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      Runner r = start(s);
      try {
        // A lying appview lists a repository that does not name the runner: it is passed over.
        OwnerRepo other =
            new OwnerRepo(s.owner, pds.pdsUrl(), "other", tmp.resolve("other"))
                .namingRunners(() -> List.of());
        other.commit(Map.of(".knotless/workflows/w.yml", WF));
        String otherSha = other.push("main");
        appview.alsoList(s.owner.did(), "other");

        // The owner's first push makes the repository naming the appview's default runner.
        s.repo.namingRunners(
            DefaultRunner.fromEnvironment(Map.of("KNOTLESS_APPVIEW", appview.url().toString())));
        String sha = s.commit(Map.of(".knotless/workflows/w.yml", WF));
        s.push("main");
        assertTrue(s.knotless("runners", s.label()).contains(runner));

        var first = s.awaitEnded(MAIN, sha, "w");
        assertEquals(CheckStatus.SUCCESS, first.status());
        assertTrue(s.log(first).contains("hello from " + s.owner.did() + "/app"), s.log(first));
        String entry = s.owner.did() + "/" + s.key();
        assertTrue(new JsonStateStore(s.state()).runner().discovered().contains(entry));
        assertEquals(1, new JsonStateStore(s.state()).runner().discovered().size());
        assertTrue(s.checks(other.key()).isEmpty());

        // The owner lets the runner go: it leaves the repository, and a later push runs nothing.
        s.knotless("runners", s.label(), "remove", runner);
        Stage.await(
            "the repository left",
            () -> new JsonStateStore(s.state()).runner().discovered().isEmpty());
        String later = s.commit(Map.of("README.md", "later\n"));
        s.push("main");
        Thread.sleep(6000); // three sweeps
        assertNull(s.check(MAIN, later, "w"));
        assertTrue(s.checks(other.key()).isEmpty(), "other at " + otherSha);
      } finally {
        r.stop();
      }
    }
  }

  @Test
  void aFoundRepositoryRenamedIsWatchedUnderItsNewNameByItsKeyEvenOnceItsOldNameIsTakenAgain(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      String runner = s.runnerAccount.did();
      String sha = pushNamingTheRunner(s, appview);
      String key = s.key();
      String owner = s.owner.did();
      Runner r = start(s);
      try {
        assertTrue(s.log(s.awaitEnded(MAIN, sha, "w")).contains("hello from " + owner + "/app"));

        s.knotless("repo", "rename", s.label(), "renamed");
        // The same work tree, pushing under the new name.
        OwnerRepo renamed = new OwnerRepo(s.owner, pds.pdsUrl(), "renamed", tmp.resolve("owner"));
        assertEquals(key, renamed.key());
        String next = renamed.commit(Map.of("README.md", "two\n"));
        renamed.push("main");
        CheckRecord two = ended(s, key, next);
        assertEquals(CheckStatus.SUCCESS, two.status(), String.valueOf(two));
        assertTrue(s.log(two).contains("hello from " + owner + "/renamed"), s.log(two));

        // A new repository takes the old name (a push there would follow the redirect), naming the
        // runner too: each is watched by its key.
        s.knotless("create", s.label(), "--runner", runner);
        OwnerRepo taken = new OwnerRepo(s.owner, pds.pdsUrl(), "app", tmp.resolve("taken"));
        assertFalse(key.equals(taken.key()));
        String theirs = taken.commit(Map.of(".knotless/workflows/w.yml", WF));
        taken.push("main");
        CheckRecord first = ended(s, taken.key(), theirs);
        assertTrue(s.log(first).contains("hello from " + owner + "/app"), s.log(first));
        String third = renamed.commit(Map.of("README.md", "three\n"));
        renamed.push("main");
        CheckRecord three = ended(s, key, third);
        assertEquals(CheckStatus.SUCCESS, three.status(), String.valueOf(three));
        assertTrue(s.log(three).contains("hello from " + owner + "/renamed"), s.log(three));
        assertEquals(
            java.util.Set.of(owner + "/" + key, owner + "/" + taken.key()),
            java.util.Set.copyOf(new JsonStateStore(s.state()).runner().discovered()));
      } finally {
        r.stop();
      }
    }
  }

  /** The push check of {@code commit} on main of the repository with {@code key}, once ended. */
  private static CheckRecord ended(Stage s, String key, String commit) throws Exception {
    String rkey = CheckKeys.push(s.owner.did(), key, MAIN, commit, "w");
    CheckRecord[] seen = {null};
    Stage.await(
        "w at " + commit.substring(0, 8) + " of " + key,
        () -> {
          try {
            seen[0] = s.checks(key).get(rkey);
          } catch (java.io.IOException e) {
            return false;
          }
          return seen[0] != null && seen[0].status().ended();
        });
    return seen[0];
  }

  @Test
  void aRestartWithTheAppviewDownStillWatchesWhatWasFound(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      String sha = pushNamingTheRunner(s, appview);
      Runner first = start(s);
      assertEquals(CheckStatus.SUCCESS, s.awaitEnded(MAIN, sha, "w").status());
      first.stop();

      appview.setDown(true);
      Runner second = start(s);
      try {
        String next = s.commit(Map.of("README.md", "two\n"));
        s.push("main");
        assertEquals(CheckStatus.SUCCESS, s.awaitEnded(MAIN, next, "w").status());
        assertFalse(new JsonStateStore(s.state()).runner().discovered().isEmpty());
      } finally {
        second.stop();
      }
    }
  }

  @Test
  void aRepositoryWrittenOnTheEventStreamNamingTheRunnerIsFoundBeforeTheNextSweep(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      String runner = s.runnerAccount.did();
      s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      Runner r = start(s, "600");
      try {
        // The start's sweep has asked the appview already; the next one is ten minutes away.
        Stage.await("the first sweep", () -> appview.queries() > 0);
        s.repo.namingRunners(() -> List.of(runner));
        String sha = s.commit(Map.of(".knotless/workflows/w.yml", WF));
        s.push("main");
        assertEquals(CheckStatus.SUCCESS, s.awaitEnded(MAIN, sha, "w").status());
      } finally {
        r.stop();
      }
    }
  }

  @Test
  void namesAHostileAppviewListsThatAreNoRepositoryNamesArePassedOverAndTheSweepsGoOn(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      String sha = pushNamingTheRunner(s, appview);
      String owner = s.owner.did();
      // Each would have thrown out of the sweep, ending every later one.
      appview.alsoList(owner, "evil\nname");
      appview.alsoList(owner, "..");
      appview.alsoList(owner, "x".repeat(300));
      appview.alsoList(owner, "\u001b[31mred");
      Runner r = start(s);
      try {
        assertEquals(CheckStatus.SUCCESS, s.awaitEnded(MAIN, sha, "w").status());
        int now = appview.queries();
        Stage.await("two more sweeps", () -> appview.queries() >= now + 2);
        assertEquals(
            List.of(owner + "/" + s.key()), new JsonStateStore(s.state()).runner().discovered());
      } finally {
        r.stop();
      }
    }
  }

  /** The owner's first push, of the workflow, making the repository name the runner. */
  private static String pushNamingTheRunner(Stage s, HarnessAppview appview) throws Exception {
    s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
    s.repo.namingRunners(() -> List.of(s.runnerAccount.did()));
    String sha = s.commit(Map.of(".knotless/workflows/w.yml", WF));
    s.push("main");
    return sha;
  }

  private static Runner start(Stage s) throws Exception {
    return start(s, "2");
  }

  private static Runner start(Stage s, String sweep) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--executor",
                "shell",
                "--state",
                s.state().toString(),
                "--work",
                s.dir.resolve("work").toString(),
                "--firehose",
                "ws://127.0.0.1:" + s.pds.pdsUrl().getPort(),
                "--sweep",
                sweep,
                "--discover"));
    return Runner.start(RunnerOptions.parse(args, s.runnerEnv()).orElseThrow(), s.runnerEnv());
  }
}
