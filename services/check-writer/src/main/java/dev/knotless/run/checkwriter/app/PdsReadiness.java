package dev.knotless.run.checkwriter.app;

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

/** Ready only while the runner's PDS answers its health endpoint. */
@Readiness
@ApplicationScoped
public class PdsReadiness implements HealthCheck {
  private final PdsSession session;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  public PdsReadiness(PdsSession session) {
    this.session = session;
  }

  @Override
  public HealthCheckResponse call() {
    try {
      URI health = session.pds().resolve("/xrpc/_health");
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
