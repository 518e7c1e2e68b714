package dev.knotless.run.ingester.app;

import dev.knotless.runner.doorbell.WebSocketSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready only while the event source's connection is open: without it no frame rings a door. */
@Readiness
@ApplicationScoped
public class SourceReadiness implements HealthCheck {
  private final WebSocketSource source;

  public SourceReadiness(WebSocketSource source) {
    this.source = source;
  }

  @Override
  public HealthCheckResponse call() {
    return HealthCheckResponse.named("event-source")
        .status(source.connected())
        .withData("source", source.getClass().getSimpleName())
        .withData("connections", source.connections())
        .build();
  }
}
