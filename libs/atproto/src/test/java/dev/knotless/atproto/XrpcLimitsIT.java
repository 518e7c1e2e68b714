package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The error paths that need a PDS started with rate limits on and a small blob limit. */
@WithPds(rateLimits = true, blobUploadLimit = 1024, scope = WithPds.Scope.CLASS)
class XrpcLimitsIT {

  private final PdsInstance pds;

  XrpcLimitsIT(PdsInstance pds) {
    this.pds = pds;
  }

  @Test
  void aBlobOverTheLimitIsTooLargeAndOneAtTheLimitLands() throws Exception {
    Account a = pds.createAccount("big");
    XrpcClient c = XrpcClient.create(pds.pdsUrl());
    c.login(a.handle(), a.password());
    assertEquals(1024, c.describeServer().blobUploadLimit());
    assertEquals(1024, c.uploadBlob(new byte[1024], "application/octet-stream").size());
    XrpcException e =
        assertThrows(
            XrpcException.class, () -> c.uploadBlob(new byte[1025], "application/octet-stream"));
    assertEquals(413, e.status());
    assertEquals(XrpcException.Kind.TOO_LARGE, e.kind());
    assertTrue(e.tooLarge());
  }

  @Test
  void aRateLimitedCallSaysWhenWritesAreLetInAgain() throws Exception {
    Account a = pds.createAccount("limited");
    XrpcException limited = null;
    for (int i = 0; i < 40 && limited == null; i++) {
      try {
        XrpcClient.create(pds.pdsUrl()).login(a.handle(), "wrong-password");
      } catch (XrpcException e) {
        if (e.kind() == XrpcException.Kind.RATE_LIMITED) {
          limited = e;
        }
      }
    }
    assertTrue(limited != null, "createSession was never rate limited in 40 tries");
    assertEquals(429, limited.status());
    assertTrue(limited.retryable());
    Instant reset = limited.rateLimitReset().orElseThrow();
    assertTrue(reset.isAfter(Instant.now().minusSeconds(1)), reset.toString());
    assertTrue(reset.isBefore(Instant.now().plus(Duration.ofDays(1))), reset.toString());
  }
}
