package dev.knotless.run.checkwriter.app;

import dev.knotless.atproto.PdsHealth;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready only while the runner's PDS answers its health endpoint. */
@Readiness
@ApplicationScoped
public class PdsReadiness implements HealthCheck {
  private final PdsSession session;

  public PdsReadiness(PdsSession session) {
    this.session = session;
  }

  @Override
  public HealthCheckResponse call() {
    try {
      return answer(PdsHealth.probe(session.pds()));
    } catch (IOException e) {
      return HealthCheckResponse.named("pds").down().withData("error", e.toString()).build();
    }
  }

  private static HealthCheckResponse answer(PdsHealth.Result r) {
    var b = HealthCheckResponse.named("pds").status(r.up()).withData("status", r.status());
    return (r.error() == null ? b : b.withData("error", r.error())).build();
  }
}
