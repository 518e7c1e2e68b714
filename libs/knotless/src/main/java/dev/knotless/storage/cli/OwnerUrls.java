package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessUrl;

/**
 * The repository argument of the owner tools: {@code knotless://<handle or did>/<name>}, or the
 * same without the scheme, as the runner's command line names repositories. Stateless.
 */
final class OwnerUrls {
  private OwnerUrls() {}

  /**
   * Parses either form.
   *
   * @throws UsageException naming what is wrong with it
   */
  static KnotlessUrl parse(String arg) {
    String url = arg.startsWith(KnotlessUrl.SCHEME) ? arg : KnotlessUrl.SCHEME + arg;
    try {
      return KnotlessUrl.parse(url);
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "expected knotless://<handle or did>/<name> or <handle or did>/<name>, got "
              + arg
              + ": "
              + e.getMessage());
    }
  }
}
