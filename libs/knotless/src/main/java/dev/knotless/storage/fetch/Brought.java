package dev.knotless.storage.fetch;

import dev.knotless.storage.git.BroughtHistory;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.git.LooseObjects;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one fetch's packs brought: the objects of those written as loose objects in this JVM, and
 * whether any went through {@code index-pack} instead; and from that, whether the history of what
 * is wanted is shown whole without git ({@link BroughtHistory}). Thread-safe: a fetch indexes
 * several packs at once.
 */
final class Brought {
  private final List<LooseObjects.Parsed> objects = Collections.synchronizedList(new ArrayList<>());
  private final AtomicBoolean byGit = new AtomicBoolean();

  /** How many objects were brought when {@link #shownWhole} last could not show it; or -1. */
  private int notShownWith = -1;

  /** A pack written as loose objects: its objects. */
  void written(List<LooseObjects.Parsed> pack) {
    objects.addAll(pack);
  }

  /**
   * A pack goes through {@code index-pack}, so its objects are not known here; true the first time,
   * when the history check's {@code rev-list} should be started ahead.
   */
  boolean indexedByGit() {
    return byGit.compareAndSet(false, true);
  }

  /**
   * Whether every pack was written here and its objects show the history of {@code wanted} whole by
   * {@code whole} (targets of refs, whose history is whole); false leaves the question to git.
   */
  synchronized boolean shownWhole(Git local, Collection<String> wanted, Set<String> whole) {
    List<LooseObjects.Parsed> now = List.copyOf(objects);
    if (byGit.get() || now.isEmpty() || now.size() == notShownWith) {
      return false;
    }
    boolean shown = BroughtHistory.shownWhole(local, now, wanted, whole);
    if (!shown) {
      notShownWith = now.size(); // asked again with nothing more brought, the answer is the same
    }
    return shown;
  }
}
