package dev.knotless.runner.pass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.Printable;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The appview's word of writes in the spaces of a runner's private repositories ({@code
 * dev.knotless.awaitSpaceWrites}, our reading of runner.md): asked from a cursor, with a service
 * token, it answers as soon as one of the runner's spaces is written to, or with none after 25
 * seconds. Every reply is checked before anything of it is used: a reply that is malformed or too
 * big is refused whole, so its cursor is not taken and nothing is lost. Thread-safe.
 */
public final class SpaceWrites implements SpaceWriteSource {
  /** The query's NSID. */
  public static final String AWAIT = "dev.knotless.awaitSpaceWrites";

  /** The most bytes of one reply read: a page of writes is a few kilobytes. */
  static final long MAX_REPLY_BYTES = 256 * 1024;

  /** The most writes one reply may carry. */
  static final int MAX_WRITES = 100;

  /** The longest cursor taken. */
  static final int MAX_CURSOR = 256;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One write passed on: a member's repo in a space, at a revision. */
  public record Write(SpaceId space, String repo, String rev) {}

  /**
   * One answer.
   *
   * @param cursor where to ask from next
   * @param missed the appview may have missed writes before this answer (the first answer, and one
   *     after it restarted): every private repository is to be read again
   */
  public record Reply(String cursor, boolean missed, List<Write> writes) {}

  /** Gives a service token for the appview, for {@link #AWAIT}. */
  public interface Tokens {
    String token() throws IOException;
  }

  private final XrpcClient appview;
  private final Tokens tokens;

  public SpaceWrites(XrpcClient appview, Tokens tokens) {
    this.appview = appview;
    this.tokens = tokens;
  }

  /**
   * Waits for the writes after {@code cursor} (null: from now, which answers {@code missed}).
   *
   * @throws IOException when the appview does not answer, or its answer is refused
   */
  @Override
  public Reply await(String cursor) throws IOException {
    Map<String, String> p = new HashMap<>();
    p.put("cursor", cursor);
    byte[] body = appview.bytesWith(tokens.token(), AWAIT, p, MAX_REPLY_BYTES);
    JsonNode reply;
    try {
      reply = JSON.readTree(body);
    } catch (IOException e) {
      throw refused("is not JSON");
    }
    return parse(reply);
  }

  /**
   * Reads one reply, refusing it whole if anything in it is not as the method says.
   *
   * @throws XrpcException saying what is wrong, for the log
   */
  static Reply parse(JsonNode r) throws XrpcException {
    if (r == null || !r.isObject()) {
      throw refused("is not an object");
    }
    JsonNode c = r.path("cursor");
    String cursor = c.isTextual() ? c.asText() : "";
    if (cursor.isEmpty()
        || cursor.length() > MAX_CURSOR
        || !cursor.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f)) {
      throw refused("has no usable cursor: " + clip(c));
    }
    JsonNode missed = r.path("missed");
    if (!missed.isMissingNode() && !missed.isBoolean()) {
      throw refused("has a missed that is not true or false: " + clip(missed));
    }
    JsonNode ws = r.path("writes");
    if (!ws.isArray()) {
      throw refused("has no list of writes");
    }
    if (ws.size() > MAX_WRITES) {
      throw refused("has " + ws.size() + " writes, more than the " + MAX_WRITES + " one may");
    }
    List<Write> writes = new ArrayList<>();
    for (JsonNode w : ws) {
      SpaceId space;
      try {
        space = SpaceId.parse(w.path("space").isTextual() ? w.path("space").asText() : null);
      } catch (IllegalArgumentException e) {
        throw refused("names a write in no space: " + clip(w.path("space")));
      }
      String repo = w.path("repo").asText("");
      if (!repo.startsWith("did:") || repo.length() > 2048 || Printable.hasUnprintable(repo)) {
        throw refused("names a write by one that is not a DID: " + clip(w.path("repo")));
      }
      writes.add(new Write(space, repo, w.path("rev").asText("")));
    }
    return new Reply(cursor, missed.asBoolean(false), List.copyOf(writes));
  }

  private static XrpcException refused(String what) {
    return new XrpcException(AWAIT, 200, "InvalidResponse", "the appview's reply " + what, null);
  }

  private static String clip(JsonNode n) {
    return Printable.quote(n.isMissingNode() ? "" : n.toString());
  }
}
