package dev.knotless.testing.distributed;

import dev.knotless.testing.infra.EmbeddedPg;
import dev.knotless.testing.infra.KafkaBroker;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the local shape launches each service: as a JVM from its jar or, once {@link #fromImages} is
 * on, a container of its image; its settings carrying the broker's address, and PostgreSQL's where
 * it keeps state; the broker's login for that service in its environment; span export once {@link
 * #traces} names a receiver. Not thread-safe: the shape starts one at a time.
 */
final class ServiceLauncher {
  private final Path root;
  private final Path dir;
  private final KafkaBroker broker;
  private final EmbeddedPg pg;
  private boolean images;
  private URI traces;

  ServiceLauncher(Path root, Path dir, KafkaBroker broker, EmbeddedPg pg) {
    this.root = root;
    this.dir = dir;
    this.broker = broker;
    this.pg = pg;
  }

  /** Launches services from their images from now on; {@code dir} is opened to their user. */
  void fromImages() throws IOException {
    images = true;
    // They run as the image's user, who must reach the settings' files under the directory.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Has services launched from now on export their spans to {@code endpoint}. */
  void traces(URI endpoint) {
    this.traces = endpoint;
  }

  /** Settings that reach the broker, to add a service's own to. */
  Map<String, String> kafka() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("kafka.bootstrap.servers", broker.bootstrapServers());
    return s;
  }

  /** Adds PostgreSQL's connection to {@code settings}, and its password to {@code env}. */
  void postgres(Map<String, String> settings, Map<String, String> env) {
    settings.put("quarkus.datasource.username", "postgres");
    settings.put("quarkus.datasource.jdbc.url", pg.jdbcUrl());
    env.put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
  }

  /**
   * A directory the services' own user (not this JVM's) can write in, for services run from their
   * images: they run as the image's user, 185.
   */
  void writable(Path d) throws IOException {
    Files.createDirectories(d);
    if (images) {
      Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
    }
  }

  /** Starts {@code service} as {@code label} and waits until it is ready. */
  ServiceProcess launch(
      String service,
      String label,
      Map<String, String> settings,
      Map<String, String> env,
      boolean dockerRuns)
      throws IOException {
    if (traces != null) {
      settings = new LinkedHashMap<>(settings);
      settings.put("quarkus.otel.sdk.disabled", "false");
      settings.put("quarkus.otel.exporter.otlp.traces.endpoint", traces.toString());
      // Spans leave within a fifth of a second rather than the default five.
      settings.put("quarkus.otel.bsp.schedule.delay", "200ms");
    }
    if (broker.authenticated()) {
      // The mechanism is a setting; the JAAS line holds the service's password: environment only.
      Map<String, String> auth = broker.clientSettings(service);
      settings = new LinkedHashMap<>(settings);
      settings.put("kafka.security.protocol", auth.get("security.protocol"));
      settings.put("kafka.sasl.mechanism", auth.get("sasl.mechanism"));
      env = new HashMap<>(env);
      env.put("KAFKA_SASL_JAAS_CONFIG", auth.get("sasl.jaas.config"));
    }
    if (!images) {
      return ServiceProcess.start(root, service, label, settings, env, dir.resolve("logs"));
    }
    dev.knotless.testing.LocalDocker.ensure();
    ServiceProcess.Container c =
        new ServiceProcess.Container(
            ServiceImages.of(root).image(service), List.of(dir), dockerRuns, List.of());
    return ServiceProcess.startContainer(c, label, settings, env, dir.resolve("logs"));
  }
}
