package dev.knotless.runner.discover;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.doorbell.RepoId;
import java.io.IOException;
import java.util.Optional;

/** Finds a public repository's name from its key, in its owner's repository records. */
final class RepoNames {
  private static final String REPO = "dev.knotless.repo";

  private RepoNames() {}

  /**
   * The name of the owner's repository whose record holds {@code id}'s key, or, with {@code
   * lookingByName}, whose name is {@code id}'s key; empty when there is none.
   *
   * @throws IOException when the account cannot be read, or the record is keyed by no name
   */
  static Optional<String> nameOf(XrpcClient owner, RepoId id, boolean lookingByName)
      throws IOException {
    String cursor = null;
    while (true) {
      RecordPage page = owner.listRecords(id.ownerDid(), REPO, 100, cursor, false);
      for (Record r : page.records()) {
        if (id.repoKey().equals(r.value().path("key").asText())
            || (lookingByName && id.repoKey().equals(r.rkey()))) {
          try {
            return Optional.of(dev.knotless.storage.Keys.validateName(r.rkey()));
          } catch (IllegalArgumentException e) {
            throw new IOException("its repository record is keyed by no name: " + e.getMessage());
          }
        }
      }
      if (page.records().size() < 100 || page.cursor() == null) {
        return Optional.empty();
      }
      cursor = page.cursor();
    }
  }
}
