package dev.knotless.testing.distributed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The repositories the local shape's reconcilers watch, written for each one started as the one
 * list in the one format the chart's ConfigMap holds: {@code <did>/<name>}, one a line.
 * Thread-safe.
 */
final class ReposList {

  /** A repository watched: its owner, its key and its name. */
  private record Watch(String did, String key, String name) {}

  private final List<Watch> watched = new ArrayList<>();

  synchronized void add(String did, String key, String name) {
    watched.add(new Watch(did, key, name));
  }

  /** Watches repository {@code key} of {@code did} by {@code name} now, in place of before. */
  synchronized void rename(String did, String key, String name) {
    watched.removeIf(w -> w.did().equals(did) && w.key().equals(key));
    watched.add(new Watch(did, key, name));
  }

  /** Writes the list to {@code file} as it stands now. */
  void write(Path file) throws IOException {
    List<String> labels = new ArrayList<>(List.of("# <handle or did>/<name>, one a line"));
    synchronized (this) {
      for (Watch w : watched) {
        labels.add(w.did() + "/" + w.name());
      }
    }
    Files.write(file, labels);
  }
}
