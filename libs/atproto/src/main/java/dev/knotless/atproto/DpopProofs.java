package dev.knotless.atproto;

import java.net.URI;

/**
 * Signs DPoP proofs (RFC 9449) with a session's own key, and remembers the nonce each server last
 * gave, so the next proof to it carries that nonce. Implementations are thread-safe.
 */
public interface DpopProofs {

  /**
   * A proof for one request.
   *
   * @param htm the HTTP method
   * @param htu the request's address; its query and fragment are left out of the proof
   * @param accessToken the token the request carries, bound into the proof as {@code ath}, or null
   *     for a request to the authorization server
   */
  String proof(String htm, URI htu, String accessToken);

  /** Remembers {@code nonce}, just given by the server {@code at} belongs to. */
  void nonce(URI at, String nonce);
}
