package dev.knotless.storage;

import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Printable;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Record keys of a repository's records, and the checks on names that double as keys. Every record
 * but the repo record is keyed {@code <key>.<suffix>}, so one repository is one key range in each
 * collection. Pure and thread-safe.
 */
public final class Keys {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._~-]{1,100}");

  private Keys() {}

  /** The key of the ref record of {@code ref}: {@code <key>.<h(ref)>}. */
  public static String ref(String key, String ref) {
    return key + "." + Hashes.h(ref);
  }

  /** The key of the claim on {@code ref} moving off {@code generation}. */
  public static String claim(String key, String ref, long generation) {
    return ref(key, ref) + "." + generation;
  }

  /** The key of a pack written with TID {@code tid}. */
  public static String pack(String key, String tid) {
    return key + "." + tid;
  }

  /** The prefix every record key of the repository starts with. */
  public static String prefix(String key) {
    return key + ".";
  }

  /**
   * The cursor a descending scan of the repository starts from: {@code /} sorts just above {@code
   * .}, so {@code <key>/} is above every key of the range.
   */
  public static String scanStart(String key) {
    return key + "/";
  }

  /** Whether {@code rkey} belongs to the repository keyed {@code key}. */
  public static boolean inRange(String key, String rkey) {
    return rkey.startsWith(prefix(key));
  }

  /**
   * Checks a repository name, which is also the repo record's key: 1 to 100 bytes of {@code
   * [A-Za-z0-9._~-]}, not {@code .} or {@code ..}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static String validateName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a repository name must not be empty");
    }
    // The name is quoted with escapes: it may come from a hostile PDS or appview, and a newline or
    // a terminal escape in it must not reach a log line as it is.
    if (name.getBytes(StandardCharsets.UTF_8).length > 100) {
      throw new IllegalArgumentException(
          "repository name is longer than 100 bytes: " + Printable.quote(name));
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "repository name may hold only letters, digits and . _ ~ -: " + Printable.quote(name));
    }
    if (name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("repository name must not be . or ..: " + name);
    }
    return name;
  }
}
