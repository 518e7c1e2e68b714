package dev.knotless.atproto.identity;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * An account as resolved: its DID, its PDS, and its handle when verified both ways (the DID
 * document claims it and it resolves back to the DID). Immutable and thread-safe.
 *
 * @param did the account's DID
 * @param handle the verified handle, lowercased, or null when none verifies
 * @param pds the account's PDS endpoint
 */
public record Identity(String did, String handle, URI pds) {
  public Identity {
    Objects.requireNonNull(did, "did");
    Objects.requireNonNull(pds, "pds");
  }

  /** The verified handle, if there is one. */
  public Optional<String> verifiedHandle() {
    return Optional.ofNullable(handle);
  }

  /** The handle for people to read: the verified one, else the DID. */
  public String displayName() {
    return handle != null ? handle : did;
  }
}
