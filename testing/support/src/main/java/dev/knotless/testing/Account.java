package dev.knotless.testing;

import java.util.Objects;

/**
 * An account on a test PDS: its handle (ending in {@code .test}), its DID ({@code did:plc:…},
 * registered in the instance's own PLC) and its password, usable with {@code
 * com.atproto.server.createSession}. Immutable and thread-safe.
 *
 * <p>The password is a test secret, but {@link #toString()} still leaves it out so it never lands
 * in a test report.
 */
public record Account(String handle, String did, String password) {
  public Account {
    Objects.requireNonNull(handle, "handle");
    Objects.requireNonNull(did, "did");
    Objects.requireNonNull(password, "password");
  }

  @Override
  public String toString() {
    return "Account[" + handle + ", " + did + "]";
  }
}
