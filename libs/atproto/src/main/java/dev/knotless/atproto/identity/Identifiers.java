package dev.knotless.atproto.identity;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Syntax checks for the two ways to name an atproto account: handles ({@code alice.example.com})
 * and DIDs ({@code did:plc:…}, {@code did:web:…}). Each check returns the normal form or throws
 * {@link IllegalArgumentException} naming the input and the rule it breaks. Pure and thread-safe.
 */
public final class Identifiers {
  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
  private static final Pattern DID = Pattern.compile("did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]");
  private static final Pattern PLC = Pattern.compile("did:plc:[a-z2-7]{24}");
  private static final Pattern WEB_HOST = Pattern.compile("[a-zA-Z0-9.-]+(%3[aA][0-9]{1,5})?");

  /** Top-level domains atproto never resolves a handle under. {@code .test} is allowed. */
  private static final Set<String> RESERVED_TLDS =
      Set.of("alt", "arpa", "example", "internal", "invalid", "local", "localhost", "onion");

  private Identifiers() {}

  /** Whether {@code s} is meant as a DID rather than a handle (it starts with {@code did:}). */
  public static boolean looksLikeDid(String s) {
    return s.startsWith("did:");
  }

  /**
   * Checks a handle and returns it lowercased. A leading {@code @} is dropped, as people type
   * handles that way.
   */
  public static String handle(String handle) {
    if (handle == null || handle.isEmpty()) {
      throw new IllegalArgumentException("a handle is required");
    }
    String h = (handle.startsWith("@") ? handle.substring(1) : handle).toLowerCase(Locale.ROOT);
    if (h.length() > 253) {
      throw new IllegalArgumentException(
          "invalid handle \"" + handle + "\": longer than 253 characters");
    }
    String[] labels = h.split("\\.", -1);
    if (labels.length < 2) {
      throw new IllegalArgumentException(
          "invalid handle \"" + handle + "\": it needs a domain, such as alice.example.com");
    }
    for (String label : labels) {
      if (!LABEL.matcher(label).matches()) {
        throw new IllegalArgumentException(
            "invalid handle \""
                + handle
                + "\": each part between dots is 1 to 63 letters, digits or hyphens, not"
                + " starting or ending with a hyphen");
      }
    }
    String tld = labels[labels.length - 1];
    if (Character.isDigit(tld.charAt(0))) {
      throw new IllegalArgumentException(
          "invalid handle \"" + handle + "\": the last part must not start with a digit");
    }
    if (RESERVED_TLDS.contains(tld)) {
      throw new IllegalArgumentException(
          "invalid handle \"" + handle + "\": ." + tld + " is a reserved top-level domain");
    }
    return h;
  }

  /**
   * Checks a DID of a method atproto uses ({@code did:plc}, {@code did:web} on a bare host) and
   * returns it unchanged.
   */
  public static String did(String did) {
    if (did == null || did.isEmpty()) {
      throw new IllegalArgumentException("a DID is required");
    }
    if (did.length() > 2048 || !DID.matcher(did).matches()) {
      throw new IllegalArgumentException(
          "invalid DID \"" + did + "\": expected did:<method>:<identifier>");
    }
    if (did.startsWith("did:plc:")) {
      if (!PLC.matcher(did).matches()) {
        throw new IllegalArgumentException(
            "invalid DID \""
                + did
                + "\": a did:plc is 24 characters of a-z and 2-7 after did:plc:");
      }
      return did;
    }
    if (did.startsWith("did:web:")) {
      String host = did.substring("did:web:".length());
      if (!WEB_HOST.matcher(host).matches()) {
        throw new IllegalArgumentException(
            "invalid DID \"" + did + "\": atproto takes did:web only for a bare host name");
      }
      return did;
    }
    throw new IllegalArgumentException(
        "unsupported DID \"" + did + "\": atproto accounts use did:plc or did:web");
  }

  /** The {@code host[:port]} a did:web names, with {@code %3A} decoded. */
  static String webHost(String did) {
    return URLDecoder.decode(did.substring("did:web:".length()), StandardCharsets.UTF_8);
  }
}
