package dev.knotless.atproto;

/**
 * Record-key syntax: 1 to 512 characters of {@code [A-Za-z0-9._:~-]}, and neither {@code .} nor
 * {@code ..}. Stateless and thread-safe.
 */
public final class RecordKeys {

  private RecordKeys() {}

  /** True if {@code rkey} is a valid record key. */
  public static boolean isValid(String rkey) {
    return problem(rkey) == null;
  }

  /**
   * Checks a record key.
   *
   * @return the key
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static String validate(String rkey) {
    String p = problem(rkey);
    if (p != null) {
      throw new IllegalArgumentException("invalid record key " + quote(rkey) + ": " + p);
    }
    return rkey;
  }

  private static String problem(String rkey) {
    if (rkey == null || rkey.isEmpty()) {
      return "it is empty";
    }
    if (rkey.length() > 512) {
      return "it is " + rkey.length() + " characters long, more than 512";
    }
    if (rkey.equals(".") || rkey.equals("..")) {
      return "it may not be . or ..";
    }
    for (int i = 0; i < rkey.length(); i++) {
      char c = rkey.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == ':'
              || c == '~'
              || c == '-';
      if (!ok) {
        return "character " + quote(String.valueOf(c)) + " at " + i + " is not allowed";
      }
    }
    return null;
  }

  static String quote(String s) {
    return s == null ? "null" : '"' + s.replace("\n", "\\n") + '"';
  }
}
