package dev.knotless.atproto;

/**
 * Hears of every XRPC call an {@link XrpcClient} makes, for metrics. Implementations must be
 * thread-safe and fast: they run on the caller's thread after each call.
 */
@FunctionalInterface
public interface XrpcObserver {

  /** No-op observer. */
  XrpcObserver NONE = (method, status, nanos) -> {};

  /**
   * One call ended.
   *
   * @param method the NSID
   * @param status the HTTP status, or 0 when none came back
   * @param nanos how long it took
   */
  void called(String method, int status, long nanos);
}
