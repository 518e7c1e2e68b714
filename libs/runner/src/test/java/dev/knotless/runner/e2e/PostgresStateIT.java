package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static dev.knotless.runner.e2e.AllInOneIT.PASSING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.EmbeddedPg;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The all-in-one runner with {@code --state-db}: its state in PostgreSQL, across a restart. */
@WithPds
class PostgresStateIT {
  private static EmbeddedPg pg;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @Test
  void aPushIsRunOnceAndARestartOnTheSameDatabaseRunsOnlyThePushMadeWhileItWasDown(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      runner.extraEnv.put(RunnerOptions.STATE_DB_USER, "postgres");
      runner.extraEnv.put(RunnerOptions.STATE_DB_PASSWORD, "postgres");
      List<String> flags = List.of("--state-db", pg.jdbcUrl());
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of("README.md", "hello\n"));
      repo.push("main");
      String key = repo.account.did() + "/" + repo.key();

      runner.start(flags, repo.label());
      RunnerHarness.await("the first pass of " + repo.label(), () -> generation(key) > 0);
      long baseline = generation(key);
      String pushed = repo.commit(Map.of(".knotless/workflows/ci.yml", PASSING));
      repo.push("main");
      CheckRecord ran = runner.awaitEnded(repo, MAIN, pushed, "ci");
      assertEquals(CheckStatus.SUCCESS, ran.status(), String.valueOf(ran));
      long ranAt = generation(key);
      assertTrue(ranAt > baseline, "the generation run is in the database: " + ranAt);
      assertFalse(Files.exists(runner.state()), "no state file was written");
      runner.started().get(0).stop();

      // A runner without its state would take this push as its starting point and run nothing.
      String whileDown = repo.commit(Map.of("README.md", "changed while the runner was down\n"));
      repo.push("main");
      runner.start(flags, repo.label());
      CheckRecord next = runner.awaitEnded(repo, MAIN, whileDown, "ci");
      assertEquals(CheckStatus.SUCCESS, next.status(), String.valueOf(next));
      RunnerHarness.await("the new generation stored", () -> generation(key) > ranAt);
      assertEquals(ran, runner.check(repo, MAIN, pushed, "ci"), "the first push did not run again");
      assertEquals(2, runner.checks(repo).size(), String.valueOf(runner.checks(repo).keySet()));
    }
  }

  /** The generation of the repository's main branch the runner last ran, or 0 for none. */
  private static long generation(String repo) {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), "postgres", "postgres");
        PreparedStatement s =
            c.prepareStatement("select generation from repo_ref where repo = ? and ref = ?")) {
      s.setString(1, repo);
      s.setString(2, MAIN);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? r.getLong(1) : 0;
      }
    } catch (SQLException e) {
      return 0; // the tables are made by the runner's start
    }
  }
}
