package dev.knotless.run.reconciler.app;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready only while the PDS the passes read from answers its health endpoint. */
@Readiness
@ApplicationScoped
public class PdsReadiness implements HealthCheck {
  private final ReconcilerConfig config;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public PdsReadiness(ReconcilerConfig config) {
    this.config = config;
  }

  @Override
  public HealthCheckResponse call() {
    if (config.pds().isEmpty()) {
      return HealthCheckResponse.named("pds").up().withData("checked", false).build();
    }
    URI health = config.pds().get().resolve("/xrpc/_health");
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).GET().build(),
              HttpResponse.BodyHandlers.discarding());
      return HealthCheckResponse.named("pds")
          .status(r.statusCode() == 200)
          .withData("status", r.statusCode())
          .build();
    } catch (IOException e) {
      return HealthCheckResponse.named("pds").down().withData("error", e.toString()).build();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return HealthCheckResponse.named("pds").down().withData("error", "interrupted").build();
    }
  }
}
