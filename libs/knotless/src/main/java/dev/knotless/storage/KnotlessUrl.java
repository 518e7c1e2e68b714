package dev.knotless.storage;

import dev.knotless.atproto.identity.Identifiers;

/**
 * A {@code knotless://<handle or did>/<name>} URL, checked. Immutable.
 *
 * @param owner the handle or DID as written
 * @param name the repository's name
 */
public record KnotlessUrl(String owner, String name) {
  public static final String SCHEME = "knotless://";

  /**
   * Parses and checks a URL.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static KnotlessUrl parse(String url) {
    if (url == null || !url.startsWith(SCHEME)) {
      throw new IllegalArgumentException(
          "not a knotless URL (expected knotless://<handle or did>/<name>): " + url);
    }
    String rest = url.substring(SCHEME.length());
    if (rest.endsWith("/")) {
      rest = rest.substring(0, rest.length() - 1);
    }
    int slash = rest.indexOf('/');
    if (slash <= 0 || slash == rest.length() - 1 || rest.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "a knotless URL is knotless://<handle or did>/<name>, with one name: " + url);
    }
    String owner = rest.substring(0, slash);
    String name = rest.substring(slash + 1);
    try {
      owner = Identifiers.looksLikeDid(owner) ? Identifiers.did(owner) : Identifiers.handle(owner);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the owner in " + url + " is neither a handle nor a DID: " + e.getMessage(), e);
    }
    try {
      Keys.validateName(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "bad repository name in " + url + ": " + e.getMessage(), e);
    }
    return new KnotlessUrl(owner, name);
  }

  @Override
  public String toString() {
    return SCHEME + owner + "/" + name;
  }
}
