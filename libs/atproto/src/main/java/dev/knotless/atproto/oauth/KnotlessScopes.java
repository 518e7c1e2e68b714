package dev.knotless.atproto.oauth;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What knotless asks an account's authorization server for, and no more: {@code atproto}, writes to
 * knotless's own collections (refs, packs, claims, checks ...), blob uploads (packs and logs), and
 * service tokens for the appview methods it calls. Reads of public records need no scope. A saved
 * session granted less than today's list is told to log in again ({@link #missing}).
 */
public final class KnotlessScopes {
  private KnotlessScopes() {}

  /** The collections knotless writes, each as its own {@code repo:} scope. */
  public static final List<String> COLLECTIONS =
      List.of(
          "dev.knotless.repo",
          "dev.knotless.ref",
          "dev.knotless.pack",
          "dev.knotless.claim",
          "dev.knotless.state",
          "dev.knotless.redirect",
          "dev.knotless.check",
          "dev.knotless.rerun",
          "dev.knotless.pull",
          "dev.knotless.queue",
          "dev.knotless.minutes",
          "dev.knotless.runnerKey");

  /**
   * The methods knotless calls with a service token ({@code getServiceAuth}): the appview's, and
   * the space host's that take the caller's own token (managing a space, and trading membership for
   * a space credential). A PDS checks each token asked for against these {@code rpc:} scopes.
   */
  public static final List<String> SERVICE_METHODS =
      List.of(
          "dev.knotless.putRunOutput",
          "dev.knotless.putSecret",
          "dev.knotless.deleteSecret",
          "dev.knotless.listSecrets",
          "dev.knotless.describeServer",
          "dev.knotless.inviteRunner",
          "dev.knotless.listRunnerInvites",
          "dev.knotless.awaitSpaceWrites",
          "com.atproto.space.getCredential",
          "com.atproto.space.createSpace",
          "com.atproto.space.deleteSpace",
          "com.atproto.space.listSpaces",
          "com.atproto.space.addMember",
          "com.atproto.space.removeMember");

  /** Every scope knotless asks for, in the order asked. */
  public static List<String> all() {
    List<String> s = new ArrayList<>();
    s.add("atproto");
    for (String c : COLLECTIONS) {
      s.add("repo:" + c);
    }
    s.add("blob:*/*");
    for (String m : SERVICE_METHODS) {
      s.add("rpc:" + m + "?aud=*");
    }
    return s;
  }

  /** The scope parameter: {@link #all()} joined with spaces. */
  public static String requested() {
    return String.join(" ", all());
  }

  /**
   * The scopes knotless needs that {@code granted} (a space-separated scope string as the server
   * returned it) lacks; empty when it covers them.
   */
  public static List<String> missing(String granted) {
    Set<String> have =
        new LinkedHashSet<>(List.of(granted == null ? new String[0] : granted.split(" ")));
    List<String> out = new ArrayList<>();
    for (String s : all()) {
      if (!have.contains(s)) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * Of {@link #missing}, those without which writing at all fails (all but the service methods).
   */
  public static List<String> missingForWrites(String granted) {
    List<String> out = new ArrayList<>();
    for (String s : missing(granted)) {
      if (!s.startsWith("rpc:")) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * Refuses a saved session granted too little to write (a login from before a collection was
   * added), telling its owner to log in again. One lacking only service methods passes: what needs
   * those (live output, secrets at the appview, private repositories) is left undone until the next
   * login.
   */
  public static void requireForWrites(OAuthSession s) throws OAuthException {
    List<String> lacking = missingForWrites(s.scope());
    if (!lacking.isEmpty()) {
      throw new OAuthException(
          "the OAuth session of "
              + s.did()
              + " was granted before knotless needed "
              + String.join(" ", lacking)
              + ": log in again (knotless login)",
          "login_again",
          null);
    }
  }
}
