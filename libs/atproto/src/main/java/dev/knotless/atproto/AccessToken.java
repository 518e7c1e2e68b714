package dev.knotless.atproto;

/**
 * What one request carries as its authority: a bearer token (an app-password session's, or a
 * service token), or an OAuth access token bound to a DPoP key, sent with a fresh proof.
 *
 * @param token the token; never logged ({@link #toString()} leaves it out)
 * @param proofs the DPoP signer when the token is bound to one, else null
 */
record AccessToken(String token, DpopProofs proofs) {

  static AccessToken bearer(String token) {
    return token == null ? null : new AccessToken(token, null);
  }

  static AccessToken dpop(String token, DpopProofs proofs) {
    return new AccessToken(token, proofs);
  }

  boolean bound() {
    return proofs != null;
  }

  @Override
  public String toString() {
    return bound() ? "AccessToken[DPoP]" : "AccessToken[Bearer]";
  }
}
