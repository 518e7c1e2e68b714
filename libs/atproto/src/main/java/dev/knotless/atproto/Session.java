package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * An account's session on its PDS, from {@code createSession} or {@code refreshSession}.
 *
 * <p>The tokens are secrets: {@link #toString()} leaves them out, so a session logged by accident
 * shows only whose it is.
 *
 * @param did the account
 * @param handle its handle as the PDS knows it
 * @param accessJwt the bearer token for calls
 * @param refreshJwt the token that gets a new access token
 */
public record Session(String did, String handle, String accessJwt, String refreshJwt) {

  /**
   * When the access token expires, from its {@code exp} claim, or {@link Instant#MAX} if unknown.
   */
  public Instant accessExpiry() {
    return expiry(accessJwt);
  }

  static Instant expiry(String jwt) {
    String[] parts = jwt == null ? new String[0] : jwt.split("\\.");
    if (parts.length < 2) {
      return Instant.MAX;
    }
    try {
      JsonNode claims =
          Json.read(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
      JsonNode exp = claims.get("exp");
      return exp != null && exp.canConvertToLong()
          ? Instant.ofEpochSecond(exp.asLong())
          : Instant.MAX;
    } catch (IllegalArgumentException | java.io.IOException e) {
      // An opaque token is allowed; the server says when it expires by refusing it.
      return Instant.MAX;
    }
  }

  @Override
  public String toString() {
    return "Session[did=" + did + ", handle=" + handle + "]";
  }
}
