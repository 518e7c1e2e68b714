package dev.knotless.runner.discover;

import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.pass.Watched;

/**
 * How the state's {@code discovered} keeps a private repository found by invite: {@code <owner
 * did>/<repo key>/<name>}, as a public one's {@code <owner did>/<repo key>} plus its name, since a
 * private repository's name cannot be found again from its key (its record is in a space named
 * after it, not in its owner's account). A name holds no {@code /}, so the two never mix.
 */
final class PrivateEntries {
  private PrivateEntries() {}

  /** The entry a repository found is kept as. */
  static String entry(Watched w) {
    return w.privateRepo() ? w.stateKey() + "/" + w.address().name() : w.stateKey();
  }

  /** The entry's {@code <owner did>/<repo key>}. */
  static String key(String entry) {
    int first = entry.indexOf('/');
    int second = first < 0 ? -1 : entry.indexOf('/', first + 1);
    return second < 0 ? entry : entry.substring(0, second);
  }

  /** A private repository's name, or null for a public one's entry. */
  static String name(String entry) {
    String key = key(entry);
    return key.length() == entry.length() ? null : entry.substring(key.length() + 1);
  }

  /**
   * Whether a read failed for a moment (no answer, a 5xx, a 429) rather than for good (no such
   * repository or space, not a member, a name that is no name).
   */
  static boolean momentary(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof XrpcException x) {
        return x.retryable();
      }
      if (t instanceof java.net.ConnectException
          || t instanceof java.net.http.HttpTimeoutException) {
        return true;
      }
    }
    return false;
  }
}
