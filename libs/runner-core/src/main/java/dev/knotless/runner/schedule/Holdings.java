package dev.knotless.runner.schedule;

import java.util.HashMap;
import java.util.Map;

/** The jobs held at once: in all, by classes other than MAIN, and by owner. Not thread-safe. */
final class Holdings {
  private int running;
  private int pullRunning;
  // Per owner: [all, public, private].
  private final Map<String, int[]> owners = new HashMap<>();

  void take(Entry e) {
    change(e, 1);
  }

  void release(Entry e) {
    change(e, -1);
  }

  int running() {
    return running;
  }

  int pullRunning() {
    return pullRunning;
  }

  int owner(String ownerDid) {
    int[] c = owners.get(ownerDid);
    return c == null ? 0 : c[0];
  }

  int owner(String ownerDid, boolean privateRepo) {
    int[] c = owners.get(ownerDid);
    return c == null ? 0 : c[privateRepo ? 2 : 1];
  }

  private void change(Entry e, int by) {
    running += by;
    if (e.request.runClass().sharesPullJobs()) {
      pullRunning += by;
    }
    int[] c = owners.computeIfAbsent(e.owner(), k -> new int[3]);
    c[0] += by;
    c[e.request.privateRepo() ? 2 : 1] += by;
    if (c[0] == 0) {
      owners.remove(e.owner());
    }
  }
}
