package dev.knotless.atproto.space;

/**
 * One permissioned space: the account that owns it (its authority) and its name. Written {@code
 * <owner did>/<name>}, as a redirect's {@code space} and the {@code space} parameter carry it.
 */
public record SpaceId(String owner, String name) {
  public SpaceId {
    if (owner == null || !owner.startsWith("did:") || owner.contains("/")) {
      throw new IllegalArgumentException("a space's owner must be a DID, not " + owner);
    }
    if (name == null || !name.matches("[A-Za-z0-9._~-]{1,100}") || name.matches("\\.{1,2}")) {
      throw new IllegalArgumentException("not a space name: " + name);
    }
  }

  /** Reads the {@code <owner did>/<name>} form. */
  public static SpaceId parse(String s) {
    int slash = s == null ? -1 : s.lastIndexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("not a space (<owner did>/<name>): " + s);
    }
    return new SpaceId(s.substring(0, slash), s.substring(slash + 1));
  }

  @Override
  public String toString() {
    return owner + "/" + name;
  }
}
