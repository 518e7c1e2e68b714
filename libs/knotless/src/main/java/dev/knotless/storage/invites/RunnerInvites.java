package dev.knotless.storage.invites;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Printable;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identifiers;
import dev.knotless.storage.Keys;
import dev.knotless.storage.secrets.AppviewSecrets;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A private repository's invites at the appview: {@code dev.knotless.inviteRunner}, which an owner
 * calls to tell a runner where to look, and {@code dev.knotless.listRunnerInvites}, which a runner
 * calls to read its own, a page at a time from where the last page ended. Each call carries a
 * service token the caller's own PDS signs for the appview's DID and that one method. An invite
 * only says where to look: anyone can leave one. Thread-safe.
 */
public final class RunnerInvites {
  public static final String INVITE = "dev.knotless.inviteRunner";
  public static final String LIST = "dev.knotless.listRunnerInvites";

  /** The most invites asked for in one page. */
  public static final int PAGE = 100;

  private final XrpcClient appview;
  private final XrpcClient account;
  private volatile String appviewDid;

  /**
   * @param appview a client of the appview (KNOTLESS_APPVIEW)
   * @param account a logged-in client of the caller's PDS, which signs the service tokens
   */
  public RunnerInvites(XrpcClient appview, XrpcClient account) {
    this.appview = appview;
    this.account = account;
  }

  /** One invite as listed: the repository's owner and name, and who left it. */
  public record Invite(String did, String name, String by) {
    /** The repository's label, {@code <owner did>/<name>}. */
    public String label() {
      return did + "/" + name;
    }
  }

  /**
   * One page of invites, and the cursor to ask from next (where this page ended). Invites that name
   * no repository are left out and counted in {@code refused}.
   */
  public record Page(List<Invite> invites, String cursor, int refused) {
    public Page {
      invites = List.copyOf(invites);
    }
  }

  /** Leaves {@code runner} an invite to {@code owner}'s private repository {@code name}. */
  public void invite(String owner, String name, String runner) throws IOException {
    ObjectNode body = Json.object();
    body.put("runner", runner);
    body.put("did", owner);
    body.put("name", name);
    appview.procedureWith(token(INVITE), INVITE, body);
  }

  /**
   * The caller's invites after {@code cursor} (null for the first).
   *
   * @throws IOException when the appview does not answer, refuses, or answers with no cursor or
   *     more than a page
   */
  public Page page(String cursor) throws IOException {
    Map<String, String> params = new HashMap<>();
    params.put("limit", String.valueOf(PAGE));
    if (cursor != null && !cursor.isEmpty()) {
      params.put("cursor", cursor);
    }
    JsonNode r = appview.queryWith(token(LIST), LIST, params);
    JsonNode list = r.path("invites");
    if (!list.isArray() || list.size() > PAGE) {
      throw new IOException(
          "the appview's " + LIST + " answered without invites, or more than " + PAGE);
    }
    String next = r.path("cursor").isTextual() ? r.path("cursor").asText() : null;
    if (next == null || next.isEmpty() || next.length() > 256 || Printable.hasUnprintable(next)) {
      throw new IOException("the appview's " + LIST + " answered without a usable cursor");
    }
    List<Invite> out = new ArrayList<>();
    int refused = 0;
    for (JsonNode n : list) {
      try {
        // Checked here, before a name reaches a label, a path or a log line.
        out.add(
            new Invite(
                Identifiers.did(n.path("did").asText("")),
                Keys.validateName(n.path("name").asText("")),
                Identifiers.did(n.path("by").asText(""))));
      } catch (IllegalArgumentException e) {
        refused++;
      }
    }
    return new Page(out, next, refused);
  }

  private String token(String lxm) throws IOException {
    String aud = appviewDid;
    if (aud == null) {
      aud = AppviewSecrets.describe(appview).did();
      appviewDid = aud;
    }
    return account.serviceToken(aud, lxm);
  }
}
