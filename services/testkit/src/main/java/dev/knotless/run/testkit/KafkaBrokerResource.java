package dev.knotless.run.testkit;

import dev.knotless.testing.infra.KafkaBroker;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Starts a real Kafka broker in its own JVM for a Quarkus test and points the service at it; a test
 * that must restart the broker reaches it through {@link #broker()}.
 *
 * <p>The broker is the authenticated one a deploy runs ({@link KafkaBroker#startAuthenticated}):
 * SASL on, ACLs enforced, one user per service. The service under test logs in as the user its init
 * argument {@code user} names ({@code ingester}, {@code reconciler}, {@code check-writer}), so it
 * is held to the same grants as in production; the test's own clients, which publish and read what
 * the service reads and writes, log in as the broker's super user ({@link #testClient}).
 */
public final class KafkaBrokerResource implements QuarkusTestResourceLifecycleManager {
  private static volatile KafkaBroker current;
  private String user;

  /** The broker this resource started, for tests that stop or restart it. */
  public static KafkaBroker broker() {
    KafkaBroker b = current;
    if (b == null) {
      throw new IllegalStateException("no Kafka broker: annotate the test with this resource");
    }
    return b;
  }

  /**
   * Client settings for the test's own producers and consumers: the bootstrap servers and the super
   * user's login, on top of {@code settings}.
   */
  public static Properties testClient(Properties settings) {
    KafkaBroker b = broker();
    settings.put("bootstrap.servers", b.bootstrapServers());
    settings.putAll(b.clientSettings("admin"));
    return settings;
  }

  @Override
  public void init(Map<String, String> initArgs) {
    user = initArgs.get("user");
    if (user == null || !KafkaBroker.SERVICES.contains(user)) {
      throw new IllegalArgumentException(
          "KafkaBrokerResource needs initArgs user, one of " + KafkaBroker.SERVICES);
    }
  }

  @Override
  public Map<String, String> start() {
    try {
      current = KafkaBroker.startAuthenticated();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.printf(
        "[KafkaBrokerResource] %s ready in %d ms (pid %d), the service logs in as %s%n",
        current.bootstrapServers(), current.lastReadyMillis(), current.pid(), user);
    Map<String, String> config = new HashMap<>();
    config.put("kafka.bootstrap.servers", current.bootstrapServers());
    current.clientSettings(user).forEach((k, v) -> config.put("kafka." + k, v));
    return config;
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
