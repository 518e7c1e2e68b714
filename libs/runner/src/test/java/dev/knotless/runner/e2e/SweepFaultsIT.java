package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.storage.cli.RenameCommand;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watched repositories that go bad between sweeps, one deleted, one renamed, one whose record no
 * longer reads: every other repository is still passed by every sweep, and each of the three is
 * named in one clear line of the log saying what became of it.
 */
@WithPds
class SweepFaultsIT {
  private static final int REPOS = 40;

  @Test
  void sweepsGoOnPastRepositoriesDeletedRenamedOrUnreadable(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("faulty");
    List<IdleRepos.Repo> repos = IdleRepos.create(pds.pdsUrl(), owner, REPOS);
    try (CapturedLog log = new CapturedLog();
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "faultrun");
        CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      IdleRepos.routeThrough(tmp.resolve("runner/cache"), proxy, owner, runner.account);
      List<String> labels = IdleRepos.labels(owner, repos);
      runner.start(List.of("--sweep", "3"), labels.toArray(String[]::new));
      RunnerHarness.await(
          Duration.ofMinutes(2),
          "the first passes",
          () -> passed(proxy, owner, repos) == REPOS,
          () -> "");

      XrpcClient client = XrpcClient.create(pds.pdsUrl());
      client.login(owner.handle(), owner.password());
      IdleRepos.Repo deleted = repos.get(1);
      IdleRepos.Repo renamed = repos.get(2);
      IdleRepos.Repo broken = repos.get(3);
      client.deleteRecord(owner.did(), "dev.knotless.repo", deleted.name());
      rename(pds, tmp, owner, labels.get(2), "moved");
      client.putRecord(
          owner.did(),
          "dev.knotless.repo",
          broken.name(),
          JsonNodeFactory.instance.objectNode().put("key", "not-a-tid"),
          dev.knotless.atproto.Swap.none());
      proxy.reset();

      // Two sweeps more pass every other repository, the broken one failing in each.
      List<IdleRepos.Repo> healthy = repos.subList(4, REPOS);
      RunnerHarness.await(
          Duration.ofSeconds(60),
          "two sweeps of the healthy repositories (%s)",
          () -> leastReruns(proxy, owner, healthy) >= 2,
          () -> PassCosts.of(proxy.spans(), owner.did(), healthy).toString());

      String text = log.text();
      assertTrue(
          text.contains(labels.get(1) + ": the repository was deleted; no longer watching it"),
          text);
      assertTrue(
          text.contains(
              labels.get(2)
                  + ": renamed to moved; the old name redirects there, and it is still watched by"
                  + " its key "
                  + renamed.key()),
          text);
      assertTrue(
          text.lines()
              .anyMatch(
                  l ->
                      l.contains(labels.get(3))
                          && l.contains("pass failed")
                          && l.contains("field 'key' is not a TID")),
          text);
      assertEquals(
          0,
          text.lines().filter(l -> l.contains("\tat dev.knotless")).count(),
          "a repository that cannot be read is one line, not a stack trace");
    }
  }

  /** How many of {@code repos} have had a pass read their rerun requests. */
  private static int passed(CountingProxy proxy, Account owner, List<IdleRepos.Repo> repos) {
    return PassCosts.of(proxy.spans(), owner.did(), repos)
        .reposByMethod()
        .getOrDefault("listRecords dev.knotless.rerun", 0);
  }

  /** The fewest rerun reads any of {@code repos} has had since the proxy's reset: whole sweeps. */
  private static long leastReruns(CountingProxy proxy, Account owner, List<IdleRepos.Repo> repos) {
    Map<String, Long> each = new HashMap<>();
    repos.forEach(r -> each.put(r.key(), 0L));
    for (CountingProxy.Span s : proxy.spans()) {
      String cursor = s.parameter("cursor");
      if ("dev.knotless.rerun".equals(s.parameter("collection")) && cursor != null) {
        each.computeIfPresent(cursor.substring(0, cursor.indexOf('/')), (k, n) -> n + 1);
      }
    }
    return each.values().stream().mapToLong(Long::longValue).min().orElse(0);
  }

  private static void rename(PdsInstance pds, Path tmp, Account owner, String label, String to)
      throws Exception {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", owner.handle());
    env.put("KNOTLESS_PASSWORD", owner.password());
    env.put("KNOTLESS_CACHE_DIR", tmp.resolve("tools").toString());
    env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("tools-config").toString());
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(said, true, StandardCharsets.UTF_8);
    assertEquals(
        0,
        RenameCommand.run(
            label, to, new CliContext(env, out, out, () -> KnotlessRepos.fromEnvironment(env))),
        said.toString(StandardCharsets.UTF_8));
  }
}
