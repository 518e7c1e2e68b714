package dev.knotless.testing.infra;

import java.util.concurrent.CountDownLatch;

/**
 * Runs {@link EmbeddedPg} in the foreground for the one-machine deploy: prints {@code PG_READY
 * <jdbc url>} and stops (deleting its data) on SIGTERM.
 */
public final class EmbeddedPgMain {
  private EmbeddedPgMain() {}

  /**
   * Starts PostgreSQL and waits for SIGTERM.
   *
   * @param args none
   * @throws Exception when it cannot start
   */
  public static void main(String[] args) throws Exception {
    EmbeddedPg pg = EmbeddedPg.start();
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    pg.close();
                  } catch (java.io.IOException e) {
                    System.err.println("PostgreSQL did not stop cleanly: " + e.getMessage());
                  }
                  done.countDown();
                },
                "pg-shutdown"));
    System.out.println("PG_READY " + pg.jdbcUrl());
    System.out.flush();
    done.await();
  }
}
