package dev.knotless.testing.infra;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The space credentials the harness's space host gives: random bearer tokens, each for one member
 * of one space for a set time, checked on every call against the space named and the space's
 * members as they are then. Not thread-safe: the host holds its lock around each call.
 */
final class GivenCredentials {

  /** A credential given: its token, for {@code did} in {@code space}, until {@code expires}. */
  record Credential(String token, String space, String did, Instant expires) {}

  private final Clock clock;
  private final Duration lasts;
  private final Map<String, Credential> credentials = new HashMap<>();
  private final SecureRandom random = new SecureRandom();
  private int given;

  /** Credentials that last {@code lasts} by {@code clock}. */
  GivenCredentials(Clock clock, Duration lasts) {
    this.clock = clock;
    this.lasts = lasts;
  }

  /** A new credential for {@code did} in {@code space}, whose membership the caller checked. */
  Credential give(String space, String did) {
    byte[] b = new byte[32];
    random.nextBytes(b);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    Credential c = new Credential(token, space, did, clock.instant().plus(lasts));
    credentials.put(token, c);
    given++;
    return c;
  }

  /**
   * The member the credential in {@code authorization} speaks for, checked against {@code space}
   * (unless null) and its membership in {@code store}.
   */
  String member(String authorization, String space, SpaceStore store) throws SpaceStore.Refusal {
    Credential c =
        authorization == null || !authorization.startsWith("Bearer ")
            ? null
            : credentials.get(authorization.substring("Bearer ".length()).strip());
    if (c == null) {
      throw new SpaceStore.Refusal(401, "InvalidCredential", "no space credential this host gave");
    }
    if (!clock.instant().isBefore(c.expires())) {
      throw new SpaceStore.Refusal(401, "ExpiredCredential", "the space credential has expired");
    }
    if (space != null && !c.space().equals(space)) {
      throw new SpaceStore.Refusal(401, "InvalidCredential", "the credential is for another space");
    }
    store.membered(c.space(), c.did());
    return c.did();
  }

  /** The space of the credential in {@code authorization}, which {@link #member} has checked. */
  String spaceOf(String authorization) {
    return credentials.get(authorization.substring("Bearer ".length()).strip()).space();
  }

  /** Drops every credential for {@code space}: it was deleted. */
  void forget(String space) {
    credentials.values().removeIf(c -> c.space().equals(space));
  }

  /** How many it has given. */
  int given() {
    return given;
  }
}
