package dev.knotless.run.reconciler.domain;

import dev.knotless.run.events.Histograms;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.PassRunner;
import dev.knotless.runner.doorbell.RepoId;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Set;

/** Counts and times passes: {@code knotless.run.passes} by outcome and their duration. */
public final class MeteredPass implements PassRunner {
  private final PassRunner pass;
  private final MeterRegistry registry;

  public MeteredPass(PassRunner pass, MeterRegistry registry) {
    this.pass = pass;
    this.registry = registry;
    for (String outcome : new String[] {"ok", "failed"}) {
      // At zero from the start: a failure ratio reads 0, not nothing, before the first failure.
      registry.counter("knotless.run.passes", "outcome", outcome);
      timer(outcome);
    }
  }

  private Timer timer(String outcome) {
    return Histograms.seconds("knotless.run.pass.duration", "reconcile passes, by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  @Override
  public void run(RepoId repo, Set<Doorbell> reasons) throws Exception {
    Timer.Sample sample = Timer.start(registry);
    String outcome = "failed";
    try {
      pass.run(repo, reasons);
      outcome = "ok";
    } finally {
      sample.stop(timer(outcome));
      registry.counter("knotless.run.passes", "outcome", outcome).increment();
    }
  }
}
