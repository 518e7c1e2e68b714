package dev.knotless.run.testkit;

import dev.knotless.testing.infra.EmbeddedPg;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** Starts a real PostgreSQL (zonky) for a Quarkus test and points the datasource at it. */
public final class PostgresResource implements QuarkusTestResourceLifecycleManager {
  private static volatile EmbeddedPg current;

  /** The server this resource started, for tests that restart it. */
  public static EmbeddedPg postgres() {
    EmbeddedPg pg = current;
    if (pg == null) {
      throw new IllegalStateException("no PostgreSQL: annotate the test with this resource");
    }
    return pg;
  }

  @Override
  public Map<String, String> start() {
    try {
      current = EmbeddedPg.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.printf(
        "[PostgresResource] 127.0.0.1:%d ready in %d ms%n",
        current.port(), current.lastReadyMillis());
    return current.quarkusConfig();
  }

  @Override
  public void stop() {
    EmbeddedPg pg = current;
    current = null;
    if (pg != null) {
      try {
        pg.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
