package dev.knotless.runner.state.pg;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.postgresql.Driver;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the runner's state in a PostgreSQL database named by a JDBC URL, for a process that has no
 * framework to make the datasource and run Flyway for it (the all-in-one runner). The reconciler
 * builds {@link PgStateStore} over its own pool instead, and lets Quarkus run the same migrations.
 *
 * <p>The datasource is the driver's {@link PGSimpleDataSource}: no pool, so every store call opens
 * and closes its own connection. Stateless and thread-safe.
 */
public final class PgStateStores {
  /** Where the schema's migrations are on the classpath; the reconciler's Flyway reads it too. */
  public static final String MIGRATIONS = "classpath:db/migration";

  private static final Logger LOG = LoggerFactory.getLogger(PgStateStores.class);

  private PgStateStores() {}

  /**
   * Connects, brings the schema up to date ({@code db/migration/V1__state.sql} and whatever follows
   * it on the classpath) and returns the store. Migrations already applied are left as they are, so
   * every start of the runner can call this.
   *
   * @param url {@code jdbc:postgresql://host[:port]/database[?parameters]}
   * @param user the user, or null for the URL's or the driver's default
   * @param password the password, or null for none
   * @return the store
   * @throws IOException when the URL is not a PostgreSQL JDBC URL, the database cannot be reached,
   *     or its schema cannot be migrated; the message says which and never holds the password
   */
  public static PgStateStore open(String url, String user, String password) throws IOException {
    if (url == null || Driver.parseURL(url, null) == null) {
      throw new IOException(
          url + " is not a PostgreSQL JDBC URL (jdbc:postgresql://host[:port]/database)");
    }
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setURL(url);
    if (user != null) {
      db.setUser(user);
    }
    if (password != null) {
      db.setPassword(password);
    }
    // One connection up front, so an unreachable database is named as such rather than as a
    // failed migration.
    try (Connection reached = db.getConnection()) {
      LOG.debug("state database {} reached as {}", url, reached.getMetaData().getUserName());
    } catch (SQLException e) {
      throw new IOException("cannot connect to " + url + ": " + e.getMessage(), e);
    }
    try {
      Flyway.configure(PgStateStores.class.getClassLoader())
          .dataSource(db)
          .locations(MIGRATIONS)
          .failOnMissingLocations(true)
          .load()
          .migrate();
    } catch (FlywayException e) {
      throw new IOException(
          "cannot bring the state schema in " + url + " up to date: " + e.getMessage(), e);
    }
    return new PgStateStore(db);
  }
}
