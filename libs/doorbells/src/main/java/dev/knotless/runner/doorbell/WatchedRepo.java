package dev.knotless.runner.doorbell;

import java.util.Objects;

/**
 * A repository the runner watches, as the wiring tells the {@link DoorMatcher}: its identity and
 * its current name. The name is needed only because the repository's own record ({@code
 * dev.knotless.repo}) is keyed by name; every other record is keyed by the repository's key.
 *
 * <p>Immutable and thread-safe.
 *
 * @param id owner DID and repository key
 * @param name the repository's name, the record key of its {@code dev.knotless.repo} record
 */
public record WatchedRepo(RepoId id, String name) {
  public WatchedRepo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "repository name must be a non-empty record key without '/', got \"" + name + "\"");
    }
  }
}
