package dev.knotless.runner.pass;

import dev.knotless.storage.Snapshot;
import dev.knotless.storage.fetch.Fetcher;
import java.io.IOException;

/**
 * Reads other accounts' repositories: where pulls' heads live, and where shared steps come from.
 * Implementations must be thread-safe: passes of different repositories call them at once.
 */
public interface HeadRepos {
  /** The repository {@code name} of {@code did}, read from the owner's PDS, refs only. */
  Snapshot read(String did, String name) throws IOException;

  /** A fetcher reading packs from {@code did}'s PDS. */
  Fetcher fetcher(String did) throws IOException;
}
