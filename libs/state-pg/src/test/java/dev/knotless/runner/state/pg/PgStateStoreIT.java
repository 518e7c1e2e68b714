package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.StateStoreContract;
import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The state store contract, against the PostgreSQL store on a real server, its schema made by
 * {@link PgStateStores#open}.
 */
class PgStateStoreIT extends StateStoreContract {
  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void emptyTheTables() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate repo, runner_discovered, runner_invited cascade");
    }
  }

  @Override
  protected StateStore newStore() {
    return new PgStateStore(db);
  }

  @Override
  protected StateStore reopen(StateStore store) {
    return new PgStateStore(db);
  }

  @Test
  void aStoreOpenedFromAUrlCarriesOnWhenTheDatabaseRestarts() throws Exception {
    StateStore store = PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
    store.update(REPO, s -> RepoState.empty().withRef("refs/heads/main", 7));

    pg.restart();

    assertEquals(Optional.of(RepoState.empty().withRef("refs/heads/main", 7)), store.load(REPO));
    store.update(REPO, s -> s.withRef("refs/heads/main", 8));
    assertEquals(8L, store.load(REPO).orElseThrow().refs().get("refs/heads/main"));
  }

  @Test
  void openingTheSameDatabaseAgainKeepsWhatItHolds() throws Exception {
    PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres")
        .update(REPO, s -> RepoState.empty().withRef("refs/heads/main", 7));

    StateStore again = PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");

    assertEquals(Optional.of(RepoState.empty().withRef("refs/heads/main", 7)), again.load(REPO));
  }
}
