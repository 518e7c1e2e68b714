package dev.knotless.run.testkit;

import dev.knotless.testing.infra.KafkaBroker;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Starts a real Kafka broker in its own JVM for a Quarkus test and points the service at it; a test
 * that must restart the broker reaches it through {@link #broker()}.
 */
public final class KafkaBrokerResource implements QuarkusTestResourceLifecycleManager {
  private static volatile KafkaBroker current;

  /** The broker this resource started, for tests that stop or restart it. */
  public static KafkaBroker broker() {
    KafkaBroker b = current;
    if (b == null) {
      throw new IllegalStateException("no Kafka broker: annotate the test with this resource");
    }
    return b;
  }

  @Override
  public Map<String, String> start() {
    try {
      current = KafkaBroker.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.printf(
        "[KafkaBrokerResource] %s ready in %d ms (pid %d)%n",
        current.bootstrapServers(), current.lastReadyMillis(), current.pid());
    return Map.of("kafka.bootstrap.servers", current.bootstrapServers());
  }

  @Override
  public void stop() {
    KafkaBroker b = current;
    current = null;
    if (b != null) {
      b.close();
    }
  }
}
