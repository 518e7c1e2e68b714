package dev.knotless.run.reconciler;

import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.PassRunner;
import dev.knotless.runner.doorbell.RepoId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The pass, for tests: records each pass and can hold one repository's passes until released.
 * Enabled only by the tests that ask for it ({@link DoorbellPassIT.Recording}).
 */
@Alternative
@ApplicationScoped
public class RecordingPass implements PassRunner {
  /** One pass that ran. */
  public record Pass(RepoId repo, Set<Doorbell> reasons) {}

  private final List<Pass> passes = new CopyOnWriteArrayList<>();
  private final Map<RepoId, CountDownLatch> holds = new ConcurrentHashMap<>();

  @Override
  public void run(RepoId repo, Set<Doorbell> reasons) throws InterruptedException {
    passes.add(new Pass(repo, reasons));
    CountDownLatch hold = holds.get(repo);
    if (hold != null && !hold.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("test never released the pass of " + repo);
    }
  }

  /** Makes the repository's passes wait until {@link #release}. */
  public void hold(RepoId repo) {
    holds.put(repo, new CountDownLatch(1));
  }

  /** Lets the repository's passes go. */
  public void release(RepoId repo) {
    CountDownLatch hold = holds.remove(repo);
    if (hold != null) {
      hold.countDown();
    }
  }

  /** The passes of a repository so far, in order. */
  public List<Pass> of(RepoId repo) {
    return passes.stream().filter(p -> p.repo().equals(repo)).toList();
  }
}
