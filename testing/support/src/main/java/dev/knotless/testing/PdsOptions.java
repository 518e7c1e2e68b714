package dev.knotless.testing;

import java.util.List;

/**
 * How to start a {@link PdsInstance}. Immutable; equal options mean an interchangeable server, so
 * {@link PdsExtension} shares one instance per distinct value in suite scope.
 *
 * @param rateLimits turn the PDS's rate limits on ({@code PDS_RATE_LIMITS_ENABLED=true}), as on
 *     bsky.social
 * @param blobUploadLimit the largest blob upload in bytes ({@code PDS_BLOB_UPLOAD_LIMIT}); 0 keeps
 *     the PDS default of 5 MiB
 * @param accounts short names of the accounts created at start (each becomes {@code <name>.test},
 *     password {@code <name>-pass})
 * @param passwordSpaces let a password session have service tokens for {@code com.atproto.space.*}
 *     ({@code PROBE_PASSWORD_SPACES=allow}); off, as a PDS with spaces will be, the harness refuses
 *     them, so private repositories are read with OAuth sessions. Only for tests not yet on OAuth.
 */
public record PdsOptions(
    boolean rateLimits, long blobUploadLimit, List<String> accounts, boolean passwordSpaces) {
  public PdsOptions {
    if (blobUploadLimit < 0) {
      throw new IllegalArgumentException(
          "blobUploadLimit must be 0 or more, got " + blobUploadLimit);
    }
    accounts = List.copyOf(accounts);
  }

  public PdsOptions(boolean rateLimits, long blobUploadLimit, List<String> accounts) {
    this(rateLimits, blobUploadLimit, accounts, false);
  }

  /** The default: no rate limits, the PDS's own blob limit, accounts alice and bob. */
  public static PdsOptions defaults() {
    return new PdsOptions(false, 0, List.of("alice", "bob"));
  }

  /** These options with rate limits on or off. */
  public PdsOptions withRateLimits(boolean on) {
    return new PdsOptions(on, blobUploadLimit, accounts, passwordSpaces);
  }

  /** These options with another blob upload limit in bytes (0 = the PDS default). */
  public PdsOptions withBlobUploadLimit(long bytes) {
    return new PdsOptions(rateLimits, bytes, accounts, passwordSpaces);
  }

  /** These options with space service tokens given to password sessions, or refused them. */
  public PdsOptions withPasswordSpaces(boolean allowed) {
    return new PdsOptions(rateLimits, blobUploadLimit, accounts, allowed);
  }
}
