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
    if (redirect.key().equals(keyAt(client, target, repo.did(), redirect.repo().rkey()))) {
      return target;
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
   * The space the private repository of {@code ownerDid} with the key {@code key}, last known by
   * the name {@code name}, keeps its records in: as {@link #records}, and then only if the
   * repository reached there by that name (its record, or the space's own redirects to it) has that
   * key. For a process that knows a repository by key and a name it was given (the check-writer),
   * so that a rename, which leaves the records where they were, never sends its checks to the space
   * of the new name, nor a new repository of an old name gets them.
   *
   * @throws XrpcException as the host refuses (not a member, no space)
   * @throws IOException when no repository with that key is found by that name
   */
  public static SpaceId recordsOf(SpaceClient client, String ownerDid, String name, String key)
      throws IOException {
    RepoAddress repo = new RepoAddress(ownerDid, ownerDid, null, name);
    SpaceId space = records(client, repo);
    String found =
        keyAt(
            client,
            space,
            ownerDid,
            space.equals(named(repo)) ? name : redirectedName(client, repo));
    if (!key.equals(found)) {
      throw new IOException(
          repo.url()
              + " leads to the space "
              + space
              + ", which holds no repository with the key "
              + key
              + (found == null ? "" : " (the one there is " + found + ")"));
    }
    return space;
  }

  /** The name the redirect in the space of {@code repo}'s name leads to, in the space it names. */
  private static String redirectedName(SpaceClient client, RepoAddress repo) throws IOException {
    Record r =
        client
            .getRecord(named(repo), repo.did(), Lexicons.REDIRECT, repo.name())
            .orElseThrow(() -> new IOException(repo.url() + ": its redirect is gone"));
    return RedirectRecord.parse(r.uri(), repo.name(), r.value()).repo().rkey();
  }

  /**
   * The key of the repository {@code name} reaches in {@code space}: its record, or the one the
   * space's own redirects lead to; null when none is reached.
   */
  private static String keyAt(SpaceClient client, SpaceId space, String did, String name)
      throws IOException {
    for (int hop = 0; hop <= SnapshotReader.MAX_REDIRECT_HOPS; hop++) {
      Optional<Record> found = client.getRecord(space, did, Lexicons.REPO, name);
      if (found.isPresent()) {
        return found.get().value().path("key").asText();
      }
      Optional<Record> next = client.getRecord(space, did, Lexicons.REDIRECT, name);
      if (next.isEmpty()) {
        return null;
      }
      name = RedirectRecord.parse(next.get().uri(), name, next.get().value()).repo().rkey();
    }
    return null;
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
