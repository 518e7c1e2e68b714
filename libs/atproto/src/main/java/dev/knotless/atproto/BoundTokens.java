package dev.knotless.atproto;

/**
 * The access tokens of an OAuth session, bound to the session's DPoP key: what an {@link
 * XrpcClient} needs to call a PDS as the account without knowing how the tokens are got. {@code
 * dev.knotless.atproto.oauth.OAuthTokens} is the one implementation. Thread-safe.
 */
public interface BoundTokens {

  /** The account. */
  String did();

  /** The access token, refreshed first when it is near its end. */
  String accessToken() throws XrpcException;

  /**
   * A new access token, because the server refused {@code refused}: concurrent callers that saw the
   * same refused token share one refresh.
   */
  String refreshAfter(String refused) throws XrpcException;

  /** The session's proof signer. */
  DpopProofs proofs();
}
