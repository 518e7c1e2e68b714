package dev.knotless.run.ingester.app;

import dev.knotless.runner.doorbell.WebSocketSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while the event source's connection is open (without it no frame rings a door), or while
 * there is no repository to watch yet, which is a state to wait out, not a fault.
 */
@Readiness
@ApplicationScoped
public class SourceReadiness implements HealthCheck {
  private final WebSocketSource source;
  private final IngesterLifecycle lifecycle;

  public SourceReadiness(WebSocketSource source, IngesterLifecycle lifecycle) {
    this.source = source;
    this.lifecycle = lifecycle;
  }

  @Override
  public HealthCheckResponse call() {
    return HealthCheckResponse.named("event-source")
        .status(source.connected() || lifecycle.waiting())
        .withData("waitingForRepositories", lifecycle.waiting())
        .withData("source", source.getClass().getSimpleName())
        .withData("connections", source.connections())
        .build();
  }
}
