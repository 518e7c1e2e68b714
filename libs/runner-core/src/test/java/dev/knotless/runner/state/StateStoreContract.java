package dev.knotless.runner.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.queue.QueueState;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What every {@link StateStore} must do, whatever it keeps the state in. A subclass makes a fresh,
 * empty store and can reopen one, as a restarted runner would.
 */
public abstract class StateStoreContract {

  protected static final String REPO = "did:plc:alice/3kabc";
  protected static final String OTHER = "did:plc:bob/3kxyz";

  /** A store with nothing in it. */
  protected abstract StateStore newStore();

  /** A new store over what {@code store} kept, as after a restart. */
  protected abstract StateStore reopen(StateStore store);

  /** A state with every field set. */
  protected static RepoState everyField() {
    return RepoState.empty()
        .withRef("refs/heads/main", 12)
        .withRef("refs/heads/feature", 3)
        .withPull("at://did:plc:bob/dev.knotless.pull/3k1", new PullMark("h1", "b1"))
        .withRerun("3krerun")
        .withAsked("at://did:plc:bob/dev.knotless.pull/3k1", Set.of())
        .withAsked("at://did:plc:bob/dev.knotless.pull/3k2", Set.of("screenshots"))
        .withPassed(
            new PassedRun("tree1", "ci", "at://did:plc:runner/dev.knotless.check/k", "at://p"))
        .withDropped(new DroppedRun("refs/heads/main", "c12", "", List.of("ci", "deploy")))
        .withWanted("refs/heads/main", new WantedRun("suite", Map.of("SCENARIO", "all")))
        .withUsage(LocalDate.of(2026, 11, 28), 60_000, false, LocalDate.of(2026, 11, 29))
        .withUsage(LocalDate.of(2026, 11, 29), 5_000, true, LocalDate.of(2026, 11, 29))
        .withQueue(queue())
        .withEjected("at://did:plc:bob/dev.knotless.pull/3k9", "h9");
  }

  /** A merge queue with a batch checking, one built ahead, and a bisection's half waiting. */
  protected static QueueState queue() {
    QueueState.Pull a = new QueueState.Pull("at://did:plc:bob/dev.knotless.pull/3k3", "h3");
    QueueState.Pull b = new QueueState.Pull("at://did:plc:bob/dev.knotless.pull/3k4", "h4");
    QueueState.Pull c = new QueueState.Pull("at://did:plc:bob/dev.knotless.pull/3k5", "h5");
    return new QueueState(
        "refs/heads/main",
        List.of(
            new QueueState.Batch(7, List.of(a), 5, "base1", "tip1", QueueState.Status.CHECKING),
            new QueueState.Batch(8, List.of(b), 0, null, null, QueueState.Status.BUILDING)),
        List.of(c),
        5,
        8);
  }

  @Test
  void aRepositoryNeverWatchedHasNoState() {
    assertEquals(Optional.empty(), newStore().load(REPO));
  }

  @Test
  void everyFieldIsKeptAcrossARestart() {
    StateStore store = newStore();
    store.update(REPO, s -> everyField());
    store.updateRunner(r -> r.withDiscovered(List.of(REPO, OTHER)).withInvited("cursor-9"));
    StateStore again = reopen(store);
    assertEquals(Optional.of(everyField()), again.load(REPO));
    assertEquals(new RunnerState(List.of(REPO, OTHER), "cursor-9"), again.runner());
  }

  @Test
  void aWatchedRepositoryWithNothingYetStaysWatchedAcrossARestart() {
    StateStore store = newStore();
    store.update(REPO, s -> s);
    assertEquals(Optional.of(RepoState.empty()), reopen(store).load(REPO));
    assertEquals(Set.of(REPO), reopen(store).repositories());
  }

  @Test
  void anUpdateOfOneRepositoryLeavesOthersAlone() {
    StateStore store = newStore();
    store.update(OTHER, s -> s.withRef("refs/heads/main", 1));
    store.update(REPO, s -> s.withRef("refs/heads/main", 7));
    store.update(REPO, s -> s.withRef("refs/heads/main", 8));
    assertEquals(Map.of("refs/heads/main", 1L), store.load(OTHER).orElseThrow().refs());
    assertEquals(Map.of("refs/heads/main", 8L), store.load(REPO).orElseThrow().refs());
  }

  @Test
  void aChangeThatFailsLeavesTheStateAsItWas() {
    StateStore store = newStore();
    store.update(REPO, s -> s.withRef("refs/heads/main", 1));
    assertThrows(
        IllegalStateException.class,
        () ->
            store.update(
                REPO,
                s -> {
                  throw new IllegalStateException("the pass failed halfway");
                }));
    assertEquals(1L, reopen(store).load(REPO).orElseThrow().refs().get("refs/heads/main"));
  }

  @Test
  void concurrentUpdatesOfOneRepositoryLoseNothing() throws Exception {
    StateStore store = newStore();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        done.add(
            pool.submit(
                () ->
                    store.update(
                        REPO,
                        s ->
                            s.withRef(
                                "refs/heads/main",
                                s.refs().getOrDefault("refs/heads/main", 0L) + 1))));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(40L, reopen(store).load(REPO).orElseThrow().refs().get("refs/heads/main"));
  }

  @Test
  void aRemovedRepositoryIsForgottenSoItsNextWatchIsAFirstOne() {
    StateStore store = newStore();
    store.update(REPO, s -> everyField());
    store.update(OTHER, s -> s);
    store.remove(REPO);
    assertEquals(Optional.empty(), reopen(store).load(REPO));
    assertTrue(reopen(store).load(OTHER).isPresent());
  }

  @Test
  void theRunnersOwnFieldsAreKeptApartFromRepositories() {
    StateStore store = newStore();
    store.updateRunner(r -> r.withInvited("c1"));
    store.update(REPO, s -> s.withRef("refs/heads/main", 2));
    assertEquals("c1", reopen(store).runner().invited());
    assertEquals(List.of(), reopen(store).runner().discovered());
  }
}
