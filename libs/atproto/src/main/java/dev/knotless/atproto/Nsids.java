package dev.knotless.atproto;

import java.util.regex.Pattern;

/**
 * Namespaced identifiers ({@code dev.knotless.ref}): at least three dot-separated segments, a
 * reversed domain then a name, at most 317 characters. Stateless and thread-safe.
 */
public final class Nsids {

  private static final Pattern DOMAIN_SEGMENT =
      Pattern.compile("[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?");
  private static final Pattern NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9]{0,62}");

  private Nsids() {}

  /**
   * Checks an NSID.
   *
   * @return the NSID
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static String validate(String nsid) {
    if (nsid == null || nsid.isEmpty()) {
      throw new IllegalArgumentException("invalid NSID: it is empty");
    }
    if (nsid.length() > 317) {
      throw new IllegalArgumentException(
          "invalid NSID " + RecordKeys.quote(nsid) + ": longer than 317");
    }
    String[] parts = nsid.split("\\.", -1);
    if (parts.length < 3) {
      throw new IllegalArgumentException(
          "invalid NSID "
              + RecordKeys.quote(nsid)
              + ": it needs a domain and a name, like dev.knotless.ref");
    }
    for (int i = 0; i < parts.length - 1; i++) {
      if (!DOMAIN_SEGMENT.matcher(parts[i]).matches()) {
        throw new IllegalArgumentException(
            "invalid NSID "
                + RecordKeys.quote(nsid)
                + ": bad segment "
                + RecordKeys.quote(parts[i]));
      }
    }
    if (!NAME.matcher(parts[parts.length - 1]).matches()) {
      throw new IllegalArgumentException(
          "invalid NSID "
              + RecordKeys.quote(nsid)
              + ": bad name "
              + RecordKeys.quote(parts[parts.length - 1]));
    }
    return nsid;
  }
}
