package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.state.pg.PgStateStores;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.EmbeddedPg;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import dev.knotless.testing.infra.StatementCounts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an idle pass costs PostgreSQL when the runner keeps its state there (a hosted operator's
 * reconcilers do), counted by the server's {@code pg_stat_statements}: a sweep of watched
 * repositories whose refs did not move reads each one's state once, in {@link #PER_IDLE_PASS}
 * select, and nothing more: no transaction, no lock, no second read, no write. The PDS side of the
 * same sweep stays at the idle pass's three reads.
 */
@WithPds
class IdlePassStatementsIT {
  private static final int REPOS = 12;

  /**
   * The statements of one idle pass: the state's load, every state table read beside the
   * repository's own row. A statement more fails the test.
   */
  static final int PER_IDLE_PASS = 1;

  @Test
  void anIdlePassReadsItsStateOnceAndWritesNothing(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("idlepg");
    List<IdleRepos.Repo> repos = IdleRepos.create(pds.pdsUrl(), owner, REPOS);
    try (EmbeddedPg pg = EmbeddedPg.startCounting();
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "idlepgrun");
        CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      StatementCounts counts = StatementCounts.on(pg);
      IdleRepos.routeThrough(tmp.resolve("runner/cache"), proxy, owner, runner.account);
      runner.extraEnv.put(RunnerOptions.STATE_DB_USER, "postgres");
      runner.extraEnv.put(RunnerOptions.STATE_DB_PASSWORD, "postgres");
      // Sweeps far enough apart that one ends, and is counted, before the next begins.
      runner.start(
          List.of("--sweep", "15", "--state-db", pg.jdbcUrl()),
          IdleRepos.labels(owner, repos).toArray(String[]::new));
      var state = PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
      RunnerHarness.await(
          Duration.ofMinutes(2),
          "the first passes of " + REPOS + " repositories (%s known)",
          () -> state.repositories().size() == REPOS,
          () -> Integer.toString(state.repositories().size()));
      proxy.awaitQuiet(Duration.ofSeconds(1));
      proxy.reset();
      counts.reset();
      RunnerHarness.await(
          Duration.ofSeconds(60),
          "a sweep to read every repository (%s)",
          () -> PassCosts.of(proxy.spans(), owner.did(), repos).read() == REPOS,
          () -> PassCosts.of(proxy.spans(), owner.did(), repos).toString());
      proxy.awaitQuiet(Duration.ofSeconds(1));
      Map<String, Long> calls = counts.calls();
      PassCosts costs = PassCosts.of(proxy.spans(), owner.did(), repos);
      System.out.println("idle sweep, PostgreSQL statements: " + calls);

      assertEquals(3 * REPOS, costs.requests() - costs.other().size(), "one sweep: " + costs);
      assertEquals(
          (long) PER_IDLE_PASS * REPOS,
          StatementCounts.total(calls),
          "statements of " + REPOS + " idle passes: " + calls);
      calls.forEach(
          (sql, n) -> {
            assertEquals(REPOS, n, "each pass sends it once: " + sql);
            assertTrue(sql.startsWith("select "), "an idle pass only reads: " + sql);
            assertTrue(!sql.contains("for update"), "an idle pass locks nothing: " + sql);
          });
    }
  }
}
