package dev.knotless.run.reconciler.app;

import dev.knotless.run.events.Traces;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.PassRunner;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.repopass.RepoPass;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Provider;
import java.io.IOException;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The pass a doorbell becomes: libs/runner's reconcile pass of the watched repository the doorbell
 * names. A doorbell for a repository not watched is logged and passed over. Thread-safe; the doors
 * run one pass per repository at a time. Each pass is a span ({@link Traces#PASS}) continuing the
 * trace of the doorbell that rang it, current on the pass's thread while it runs.
 */
@DefaultBean
@ApplicationScoped
public class ReconcilePass implements PassRunner {
  private static final Logger LOG = Logger.getLogger(ReconcilePass.class);

  private final Provider<PassWiring.WiredPass> wired;
  private final Traces.Waiting traces;
  private final Tracer tracer;

  public ReconcilePass(Provider<PassWiring.WiredPass> wired, Traces.Waiting traces, Tracer tracer) {
    this.wired = wired;
    this.traces = traces;
    this.tracer = tracer;
  }

  @Override
  public void run(RepoId repo, Set<Doorbell> reasons) throws IOException {
    Span span =
        Traces.start(tracer, Traces.PASS, SpanKind.CONSUMER, traces.take(repo.toString()))
            .setAttribute("knotless.repo", repo.toString());
    try (Scope ignored = span.makeCurrent()) {
      pass(repo, reasons);
    } finally {
      span.end();
    }
  }

  private void pass(RepoId repo, Set<Doorbell> reasons) throws IOException {
    PassWiring.WiredPass w = wired.get();
    Watched watched = w.watching().get(repo).orElse(null);
    if (watched == null) {
      LOG.warnf("Doorbell for %s passed over: not a watched repository", repo);
      return;
    }
    LOG.debugf("Pass of %s for %s", watched.label(), reasons);
    RepoPass.Outcome outcome = w.pass().run(watched, stage -> {});
    if (outcome == RepoPass.Outcome.DELETED) {
      LOG.warnf("%s: the repository was deleted; no longer watching it", watched.label());
      w.watching().leave(repo);
    } else if (outcome == RepoPass.Outcome.RENAMED && w.watching().refind(watched)) {
      LOG.debugf("%s: renamed; watched under its new name", watched.label());
    } else if (outcome == RepoPass.Outcome.LEFT || outcome == RepoPass.Outcome.RENAMED) {
      // What it was running finishes; the ingester stops ringing it once the row is gone.
      w.watching().leave(repo);
    }
  }
}
