package dev.knotless.storage;

import java.net.URI;

/**
 * Where one repository lives: the owner's DID, the owner as the user named them (handle or DID),
 * the owner's PDS and the repository's name. Immutable.
 */
public record RepoAddress(String did, String owner, URI pds, String name) {
  public RepoAddress {
    Keys.validateName(name);
    if (did == null || !did.startsWith("did:")) {
      throw new IllegalArgumentException("not a DID: " + did);
    }
  }

  /** The same repository under another name, as after following a redirect. */
  public RepoAddress renamed(String newName) {
    return new RepoAddress(did, owner, pds, newName);
  }

  /** The {@code knotless://} URL of this repository, as the user named its owner. */
  public String url() {
    return "knotless://" + owner + "/" + name;
  }

  /** The key-cache entry name, {@code <did>/<name>}. */
  public String cacheKey() {
    return did + "/" + name;
  }
}
