package dev.knotless.runner.doorbell;

import java.util.Objects;

/**
 * How the runner knows a watched repository internally: its owner's DID and the repository's key,
 * the TID fixed when it was made. A rename keeps the key, so a door outlives a rename; a new
 * repository under an old name gets a new key, and so a new door.
 *
 * <p>Immutable and thread-safe. {@link #toString()} is {@code <owner did>/<repo key>}, the form
 * used in logs and as the Kafka key of a doorbell.
 *
 * @param ownerDid the owner's DID, such as {@code did:plc:abc}
 * @param repoKey the repository's key (a TID, 13 characters), never its name
 */
public record RepoId(String ownerDid, String repoKey) {
  public RepoId {
    Objects.requireNonNull(ownerDid, "ownerDid");
    Objects.requireNonNull(repoKey, "repoKey");
    if (!ownerDid.startsWith("did:")) {
      throw new IllegalArgumentException("owner must be a DID (did:...), got \"" + ownerDid + "\"");
    }
    if (repoKey.isEmpty() || repoKey.indexOf('.') >= 0 || repoKey.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "repository key must be a non-empty record key without '.' or '/', got \""
              + repoKey
              + "\"");
    }
  }

  /**
   * Parses {@code <owner did>/<repo key>}, the form {@link #toString()} gives.
   *
   * @throws IllegalArgumentException naming the text if it is not of that form
   */
  public static RepoId parse(String text) {
    int slash = text.lastIndexOf('/');
    if (slash <= 0 || slash == text.length() - 1) {
      throw new IllegalArgumentException("expected <owner did>/<repo key>, got \"" + text + "\"");
    }
    return new RepoId(text.substring(0, slash), text.substring(slash + 1));
  }

  /**
   * The prefix every record key of this repository's records (refs, reruns, packs, ...) starts
   * with: {@code <repo key>.}.
   */
  public String recordKeyPrefix() {
    return repoKey + ".";
  }

  @Override
  public String toString() {
    return ownerDid + "/" + repoKey;
  }
}
