package dev.knotless.run.reconciler.app;

import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.PassRunner;
import dev.knotless.runner.doorbell.RepoId;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The pass until libs/runner's reconcile pass is wired in: it says so and does nothing, so the
 * doorbell plumbing can be deployed and watched on its own.
 */
@DefaultBean
@ApplicationScoped
public class UnwiredPass implements PassRunner {
  private static final Logger LOG = Logger.getLogger(UnwiredPass.class);

  @Override
  public void run(RepoId repo, Set<Doorbell> reasons) {
    LOG.warnf("Pass of %s for %s skipped: no pass is wired into this reconciler", repo, reasons);
  }
}
