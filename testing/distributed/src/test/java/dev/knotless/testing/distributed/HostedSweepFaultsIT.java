package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.infra.IdleRepos;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A sweep of many repositories, two reconcilers, during which some of them go bad: deleted,
 * renamed, their record or a ref record made unreadable, or their owner's account deactivated. Each
 * bad one ends with its own log line (stops being watched, is followed under its new name, or fails
 * its pass and rings again later), and every other repository passes, in that sweep and the next:
 * no sweep stops because one repository failed (issue 41). The hosted shape's counterpart of
 * libs/runner's {@code SweepFaultsIT}, which spoils three of 40 between an all-in-one's sweeps.
 */
class HostedSweepFaultsIT {
  /** How many repositories are watched; a property so a quick local run can take fewer. */
  static final int REPOS = Integer.getInteger("knotless.sweep-faults-repos", 1000);

  /** Of each kind of fault, how many repositories; five more are in the deactivated account. */
  static final int EACH = 10;

  @Test
  void badRepositoriesMidSweepEndWithTheirLineAndEveryOtherPasses() throws Exception {
    Path dir = Files.createTempDirectory("hosted-sweep-faults-it");
    try (LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir)) {
      Account owner = shape.pds().createAccount("many");
      Account leaving = shape.pds().createAccount("leaving");
      List<IdleRepos.Repo> repos = IdleRepos.create(shape.pds().pdsUrl(), owner, REPOS);
      List<IdleRepos.Repo> theirs = IdleRepos.create(shape.pds().pdsUrl(), leaving, "g", 5);
      repos.forEach(r -> shape.watch(owner.did(), r.key(), r.name()));
      theirs.forEach(r -> shape.watch(leaving.did(), r.key(), r.name()));
      // Spread through the list, so the faults fall on every partition.
      List<IdleRepos.Repo> deleted = every(repos, 0);
      List<IdleRepos.Repo> renamed = every(repos, 1);
      List<IdleRepos.Repo> badRecord = every(repos, 2);
      List<IdleRepos.Repo> badRef = every(repos, 3);
      List<IdleRepos.Repo> good = new ArrayList<>(repos);
      Stream.of(deleted, renamed, badRecord, badRef).forEach(good::removeAll);

      List<ServiceProcess> reconcilers = List.of(shape.startReconciler(), shape.startReconciler());
      // No sweep of its own: the two below are rung by hand, the faults landing in the first.
      shape.startIngester(Map.of("knotless.ingester.sweep", "24h"));
      Logs logs = new Logs(reconcilers);
      long[] start = new long[reconcilers.size()];
      await(
          Duration.ofMinutes(5),
          "every first pass",
          () -> passedAll(logs, start, owner, repos) && passedAll(logs, start, leaving, theirs));
      // The start's rings all passed (each door is rung as partitions are assigned, and again as
      // the ingester connects): what ends after the mark below is the sweep's.
      awaitQuiet(reconcilers, Duration.ofSeconds(3));

      double passes0 = passes(reconcilers);
      long[] sweep1 = logs.ends();
      SweepRings.ring(shape, owner.did(), keys(repos));
      SweepRings.ring(shape, leaving.did(), keys(theirs));
      // Mid-sweep: a tenth of it passed, most of it still to come.
      awaitPasses(reconcilers, passes0 + REPOS / 10.0, Duration.ofMinutes(2));
      XrpcClient pds = XrpcClient.create(shape.pds().pdsUrl());
      pds.login(owner.handle(), owner.password());
      pds.applyWrites(owner.did(), faults(owner, deleted, renamed, badRecord, badRef));
      XrpcClient gone = XrpcClient.create(shape.pds().pdsUrl());
      gone.login(leaving.handle(), leaving.password());
      gone.procedure("com.atproto.server.deactivateAccount", JsonNodeFactory.instance.objectNode());
      long[] faultsAt = logs.ends();
      double faulted = passes(reconcilers) - passes0;
      assertTrue(
          faulted < REPOS,
          "the faults landed after the sweep was over (" + faulted + " passes); a quieter machine");

      await(
          Duration.ofMinutes(5),
          "the sweep's good passes",
          () -> passedAll(logs, sweep1, owner, good));
      long[] sweep2 = logs.ends();
      Map<String, Integer> after = logs.endedPasses(faultsAt);
      long carriedOn = good.stream().filter(r -> after.containsKey(id(owner, r))).count();
      assertTrue(
          carriedOn >= good.size() / 2,
          "the sweep carried on past the faults: " + carriedOn + " good passes after them");
      // The next sweep finds them as they now are: the faults all seen, whatever the first missed.
      SweepRings.ring(shape, owner.did(), keys(repos));
      SweepRings.ring(shape, leaving.did(), keys(theirs));
      await(
          Duration.ofMinutes(5),
          "the next sweep's good passes and every bad one's line",
          () ->
              passedAll(logs, sweep2, owner, good)
                  && allSaid(logs, sweep1, deleted, r -> says(deletedLine(owner, r)))
                  && allSaid(logs, sweep1, renamed, r -> says(renamedLine(owner, r)))
                  && allSaid(
                      logs,
                      sweep2,
                      badRecord,
                      r -> failed(owner, r, r.name() + ": field 'key' is missing or not a string"))
                  && allSaid(
                      logs,
                      sweep2,
                      badRef,
                      r ->
                          failed(
                              owner,
                              r,
                              r.key() + ".garbage: field 'name' is missing or not a string"))
                  // Deactivated: unreadable, not deleted; watched still, in case it comes back.
                  && allSaid(
                      logs,
                      sweep2,
                      theirs,
                      r -> failed(leaving, r, "pass failed: com.atproto.repo.getRecord: 400")));

      for (ServiceProcess r : reconcilers) {
        assertTrue(r.alive(), r + " still runs");
      }
      for (IdleRepos.Repo r : good) {
        String failed = failedLine(owner, r);
        assertTrue(
            logs.since(sweep1).noneMatch(l -> l.contains(failed)),
            r.name() + ", a good repository, failed a pass");
      }
      for (IdleRepos.Repo r : deleted) {
        // Found deleted once: no longer watched, so no later pass finds it again.
        assertEquals(
            1,
            logs.since(sweep1).filter(l -> l.contains(deletedLine(owner, r))).count(),
            r.name() + " was found deleted more than once");
      }
      for (IdleRepos.Repo r : theirs) {
        assertTrue(
            logs.since(start)
                .noneMatch(says(leaving.did() + "/" + r.name() + ": the repository was")),
            r.name() + ", its account deactivated, was taken for deleted");
      }
      for (IdleRepos.Repo r : renamed) {
        assertTrue(
            logs.since(sweep2).anyMatch(l -> l.contains(id(owner, r) + " ended in")),
            r.name() + ", renamed, is still passed under its key");
      }
      assertEquals(REPOS - 4 * EACH, good.size());
    }
  }

  /** The writes that spoil the chosen repositories, in one batch. */
  private static List<Write> faults(
      Account owner,
      List<IdleRepos.Repo> deleted,
      List<IdleRepos.Repo> renamed,
      List<IdleRepos.Repo> badRecord,
      List<IdleRepos.Repo> badRef) {
    List<Write> w = new ArrayList<>();
    for (IdleRepos.Repo r : deleted) {
      w.add(Write.delete("dev.knotless.repo", r.name()));
    }
    for (IdleRepos.Repo r : renamed) {
      ObjectNode moved = record(r.key());
      // Other bytes than the record it replaces, which shares no block with it then.
      moved.put("createdAt", "2026-11-29T10:00:00.0Z");
      w.add(Write.create("dev.knotless.repo", newName(r), moved));
      w.add(Write.delete("dev.knotless.repo", r.name()));
      ObjectNode redirect = JsonNodeFactory.instance.objectNode();
      redirect.put("repo", "at://" + owner.did() + "/dev.knotless.repo/" + newName(r));
      redirect.put("key", r.key());
      redirect.put("createdAt", "2026-12-05T10:00:00.000Z");
      w.add(Write.create("dev.knotless.redirect", r.name(), redirect));
    }
    for (IdleRepos.Repo r : badRecord) {
      // No key: no repository record the runner can read.
      ObjectNode spoiled = JsonNodeFactory.instance.objectNode();
      spoiled.put("defaultBranch", 5);
      w.add(Write.update("dev.knotless.repo", r.name(), spoiled));
    }
    for (IdleRepos.Repo r : badRef) {
      ObjectNode spoiled = JsonNodeFactory.instance.objectNode();
      spoiled.put("name", 7);
      w.add(Write.create("dev.knotless.ref", r.key() + ".garbage", spoiled));
    }
    return w;
  }

  private static ObjectNode record(String key) {
    ObjectNode v = JsonNodeFactory.instance.objectNode();
    v.put("key", key);
    v.put("defaultBranch", "main");
    return v;
  }

  private static String newName(IdleRepos.Repo r) {
    return "moved-" + r.name();
  }

  private static String id(Account owner, IdleRepos.Repo r) {
    return owner.did() + "/" + r.key();
  }

  private static String deletedLine(Account owner, IdleRepos.Repo r) {
    return owner.did() + "/" + r.name() + ": the repository was deleted; no longer watching it";
  }

  private static String renamedLine(Account owner, IdleRepos.Repo r) {
    return owner.did()
        + "/"
        + r.name()
        + ": renamed to "
        + newName(r)
        + "; the old name redirects there, and it is still watched by its key "
        + r.key();
  }

  private static String failedLine(Account owner, IdleRepos.Repo r) {
    return id(owner, r) + " failed after ";
  }

  /** Every {@link #EACH}th of a spread of {@code repos}, starting {@code offset} in. */
  private static List<IdleRepos.Repo> every(List<IdleRepos.Repo> repos, int offset) {
    List<IdleRepos.Repo> out = new ArrayList<>();
    int step = repos.size() / EACH;
    for (int i = 0; i < EACH; i++) {
      out.add(repos.get(i * step + offset));
    }
    return out;
  }

  private static List<String> keys(List<IdleRepos.Repo> repos) {
    return repos.stream().map(IdleRepos.Repo::key).toList();
  }

  /** Whether each of {@code repos} has ended a pass since {@code from}, in the logs. */
  private static boolean passedAll(
      Logs logs, long[] from, Account owner, List<IdleRepos.Repo> repos) throws Exception {
    Map<String, Integer> ended = logs.endedPasses(from);
    return repos.stream().allMatch(r -> ended.containsKey(id(owner, r)));
  }

  /** Whether, for each of {@code repos}, a line written since {@code from} is as {@code line}. */
  private static boolean allSaid(
      Logs logs,
      long[] from,
      List<IdleRepos.Repo> repos,
      java.util.function.Function<IdleRepos.Repo, Predicate<String>> line)
      throws Exception {
    List<String> lines = logs.since(from).toList();
    return repos.stream().allMatch(r -> lines.stream().anyMatch(line.apply(r)));
  }

  private static Predicate<String> says(String text) {
    return l -> l.contains(text);
  }

  /** The doors' line of a failed pass of {@code r}, ringing again later, saying {@code why}. */
  private static Predicate<String> failed(Account owner, IdleRepos.Repo r, String why) {
    return l -> l.contains(failedLine(owner, r)) && l.contains("ringing again") && l.contains(why);
  }

  private static double passes(List<ServiceProcess> reconcilers) throws Exception {
    double sum = 0;
    for (ServiceProcess r : reconcilers) {
      sum += r.metric("knotless_run_passes_total");
    }
    return sum;
  }

  private static void awaitPasses(List<ServiceProcess> reconcilers, double until, Duration max)
      throws Exception {
    await(max, "passes to reach " + until, () -> passes(reconcilers) >= until);
  }

  /** Waits until no pass has ended for {@code still}. */
  private static void awaitQuiet(List<ServiceProcess> reconcilers, Duration still)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    double seen = passes(reconcilers);
    long since = System.nanoTime();
    while (System.nanoTime() - since < still.toNanos()) {
      if (System.nanoTime() > deadline) {
        fail("the passes of the start went on for two minutes");
      }
      Thread.sleep(250);
      double now = passes(reconcilers);
      if (now != seen) {
        seen = now;
        since = System.nanoTime();
      }
    }
  }

  private interface Check {
    boolean done() throws Exception;
  }

  private static void await(Duration max, String what, Check done) throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    while (!done.done()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + max.toSeconds() + " s waiting for " + what);
      }
      Thread.sleep(500);
    }
  }

  /** The reconcilers' logs, read whole each time, and where each ended at a moment. */
  private record Logs(List<ServiceProcess> services) {
    long[] ends() throws Exception {
      long[] at = new long[services.size()];
      for (int i = 0; i < at.length; i++) {
        at[i] = Files.size(services.get(i).log());
      }
      return at;
    }

    /** Lines written after {@code from}, one offset a service. */
    Stream<String> since(long[] from) throws Exception {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < services.size(); i++) {
        byte[] all = Files.readAllBytes(services.get(i).log());
        int start = (int) Math.min(from[i], all.length);
        out.addAll(
            new String(all, start, all.length - start, java.nio.charset.StandardCharsets.UTF_8)
                .lines()
                .toList());
      }
      return out.stream();
    }

    /** How many passes of each repository ({@code <did>/<key>}) ended after {@code from}. */
    Map<String, Integer> endedPasses(long[] from) throws Exception {
      Map<String, Integer> n = new java.util.HashMap<>();
      Predicate<String> ended = l -> l.contains(" ended in ") && l.contains("Pass #");
      since(from)
          .filter(ended)
          .forEach(
              l -> {
                String before = l.substring(0, l.indexOf(" ended in "));
                n.merge(before.substring(before.lastIndexOf(' ') + 1), 1, Integer::sum);
              });
      return n;
    }
  }
}
