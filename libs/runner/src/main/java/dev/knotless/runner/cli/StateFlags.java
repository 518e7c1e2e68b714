package dev.knotless.runner.cli;

import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgStateStores;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the state store the command line names: the JSON file of {@code --state}, or with {@code
 * --state-db} a PostgreSQL database, connected to as {@value RunnerOptions#STATE_DB_USER} with
 * {@value RunnerOptions#STATE_DB_PASSWORD} and its tables made or brought up to date. Stateless.
 */
public final class StateFlags {
  private static final Logger LOG = LoggerFactory.getLogger(StateFlags.class);

  private StateFlags() {}

  /**
   * The runner's state store.
   *
   * @param env the environment, for the database's user and password
   * @throws IOException when the database cannot be reached or migrated; the message starts with
   *     {@code --state-db} and names the URL, never the password
   */
  public static StateStore open(RunnerOptions o, Map<String, String> env) throws IOException {
    if (o.stateDb() == null) {
      return new JsonStateStore(o.state());
    }
    try {
      StateStore store =
          PgStateStores.open(
              o.stateDb(),
              nonBlank(env.get(RunnerOptions.STATE_DB_USER)),
              nonBlank(env.get(RunnerOptions.STATE_DB_PASSWORD)));
      LOG.info("state in PostgreSQL at {}", o.stateDb());
      return store;
    } catch (IOException e) {
      throw new IOException("--state-db: " + e.getMessage(), e);
    }
  }

  private static String nonBlank(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
