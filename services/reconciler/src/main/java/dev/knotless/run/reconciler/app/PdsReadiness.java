package dev.knotless.run.reconciler.app;

import dev.knotless.atproto.PdsHealth;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready only while the PDS the passes read from answers its health endpoint. */
@Readiness
@ApplicationScoped
public class PdsReadiness implements HealthCheck {
  private final ReconcilerConfig config;

  public PdsReadiness(ReconcilerConfig config) {
    this.config = config;
  }

  @Override
  public HealthCheckResponse call() {
    if (config.pds().isEmpty()) {
      return HealthCheckResponse.named("pds").up().withData("checked", false).build();
    }
    return answer(PdsHealth.probe(config.pds().get()));
  }

  private static HealthCheckResponse answer(PdsHealth.Result r) {
    var b = HealthCheckResponse.named("pds").status(r.up()).withData("status", r.status());
    return (r.error() == null ? b : b.withData("error", r.error())).build();
  }
}
