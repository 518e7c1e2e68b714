package dev.knotless.run.testkit;

import java.net.URI;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The port a service under test answers {@code /q/health} and {@code /q/metrics} on: Quarkus'
 * management interface, apart from the service's own HTTP port. Read after the application started
 * (the test port is 0, so the interface takes a free one and Quarkus records where).
 */
public final class ManagementPort {
  private ManagementPort() {}

  /** The management interface's port in the running test application. */
  public static int get() {
    String url =
        ConfigProvider.getConfig()
            .getOptionalValue("test.management.url", String.class)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no management interface: quarkus.management.enabled is not true"));
    return URI.create(url).getPort();
  }
}
