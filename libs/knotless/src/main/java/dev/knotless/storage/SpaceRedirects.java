package dev.knotless.storage;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.storage.records.RedirectRecord;
import java.io.IOException;
import java.util.Optional;

/**
 * Where a private repository's records live, our reading of storage.md's redirect carrying {@code
 * space}: a private repository is looked for in its owner's space of its name; one renamed keeps
 * its records in the space it was made in, and the rename makes a space of the new name holding
 * only a {@code dev.knotless.redirect} under that name whose {@code space} names the space of the
 * records. A redirect is followed only to a space of the same owner, and only when the repository
 * found there (its record, or a redirect within that space to it) has the key the redirect names.
 * Stateless.
 */
public final class SpaceRedirects {
  private SpaceRedirects() {}

  /** The space of the name: where a private repository named so is looked for first. */
  public static SpaceId named(RepoAddress repo) {
    return new SpaceId(repo.did(), repo.name());
  }

  /**
   * The space {@code repo}'s records live in: the space of its name, or the one a redirect there
   * names.
   *
   * @throws XrpcException as the host refuses, for the space of the name (not a member, no space)
   * @throws IOException when a redirect names another account's space, or a repository without the
   *     key it names
   */
  public static SpaceId records(SpaceClient client, RepoAddress repo) throws IOException {
    SpaceId named = named(repo);
    if (client.getRecord(named, repo.did(), Lexicons.REPO, repo.name()).isPresent()) {
      return named;
    }
    Optional<Record> r = client.getRecord(named, repo.did(), Lexicons.REDIRECT, repo.name());
    if (r.isEmpty()) {
      return named;
    }
    RedirectRecord redirect = RedirectRecord.parse(r.get().uri(), repo.name(), r.get().value());
    if (redirect.space() == null) {
      return named; // a former name within this space: the snapshot's reading follows it
    }
    SpaceId target;
    try {
      target = SpaceId.parse(redirect.space());
    } catch (IllegalArgumentException e) {
      throw new IOException(repo.url() + " redirects to a space that is not <did>/<name>", e);
    }
    if (!target.owner().equals(repo.did())) {
      throw new IOException(
          repo.url() + " redirects to another account's space (" + target + "), not followed");
    }
    String name = redirect.repo().rkey();
    for (int hop = 0; hop <= SnapshotReader.MAX_REDIRECT_HOPS; hop++) {
      Optional<Record> found = client.getRecord(target, repo.did(), Lexicons.REPO, name);
      if (found.isPresent()) {
        if (!redirect.key().equals(found.get().value().path("key").asText())) {
          break;
        }
        return target;
      }
      Optional<Record> next = client.getRecord(target, repo.did(), Lexicons.REDIRECT, name);
      if (next.isEmpty()) {
        break;
      }
      name = RedirectRecord.parse(next.get().uri(), name, next.get().value()).repo().rkey();
    }
    throw new IOException(
        repo.url()
            + " redirects to the space "
            + target
            + ", which holds no repository with the key it names ("
            + redirect.key()
            + ")");
  }

  /**
   * The owner's spaces that a rename left leading to {@code records}: each holds, under its own
   * name, a redirect whose {@code space} names {@code records}.
   */
  public static java.util.List<SpaceId> leadingTo(SpaceClient client, SpaceId records)
      throws IOException {
    java.util.List<SpaceId> out = new java.util.ArrayList<>();
    for (SpaceId s : client.ownedSpaces()) {
      if (!s.equals(records)
          && client
              .getRecord(s, records.owner(), Lexicons.REDIRECT, s.name())
              .filter(r -> records.toString().equals(r.value().path("space").asText()))
              .isPresent()) {
        out.add(s);
      }
    }
    return out;
  }
}
