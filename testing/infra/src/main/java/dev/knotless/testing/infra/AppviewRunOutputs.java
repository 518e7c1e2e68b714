package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The harness appview's live output of runs: {@code dev.knotless.putRunOutput} from runners (each
 * with a service token), and {@code dev.knotless.getRunOutput}, a check's output so far, for its
 * page. A piece naming a {@code space} is of a private repository's run: its output is shown only
 * to a caller who proves it is a member of that space, with a space credential the space's host
 * gave it, which the appview checks by asking that host ({@code com.atproto.space.listRepos}) with
 * it. Everyone else is refused, never answered with an empty output. Thread-safe.
 */
public final class AppviewRunOutputs {
  /** The read method, the harness's own (knotless-serve reads its own store for its pages). */
  public static final String GET = "dev.knotless.getRunOutput";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ServiceTokens tokens;
  private final List<ObjectNode> taken = new CopyOnWriteArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private volatile URI spaceHost;

  AppviewRunOutputs(ServiceTokens tokens) {
    this.tokens = tokens;
  }

  /** The host whose space credentials prove membership; without one, no private output is shown. */
  void checkMembersAt(URI host) {
    this.spaceHost = host;
  }

  /** Every piece taken, in order, with {@code iss}, the caller its token named, added. */
  List<ObjectNode> taken() {
    return List.copyOf(taken);
  }

  /** Takes a piece of a run's output from a caller with a service token for the method. */
  void put(HttpExchange ex) throws IOException {
    String caller;
    try {
      caller =
          tokens.verify(
              ex.getRequestHeaders().getFirst("Authorization"), "dev.knotless.putRunOutput");
    } catch (ServiceTokens.Refused e) {
      HarnessAppview.send(ex, 401, HarnessAppview.error("AuthenticationRequired", e.getMessage()));
      return;
    }
    JsonNode body = JSON.readTree(ex.getRequestBody());
    if (!(body instanceof ObjectNode o) || !o.path("check").isTextual()) {
      HarnessAppview.send(ex, 400, HarnessAppview.error("InvalidRequest", "check is required"));
      return;
    }
    if (o.has("space")) {
      try {
        dev.knotless.atproto.space.SpaceId.parse(o.path("space").asText(""));
      } catch (IllegalArgumentException bad) {
        HarnessAppview.send(
            ex, 400, HarnessAppview.error("InvalidRequest", "space is not <did>/<name>"));
        return;
      }
    }
    ObjectNode kept = o.deepCopy();
    kept.put("iss", caller);
    taken.add(kept);
    HarnessAppview.send(ex, 200, JSON.createObjectNode().put("followed", false));
  }

  /**
   * {@code ?check=<at-uri>}: the output taken for that check, its text joined in offset order, with
   * the last piece's steps, step, startedAt and ended.
   */
  void get(HttpExchange ex) throws IOException {
    String check = HarnessAppview.params(ex.getRequestURI().getRawQuery()).get("check");
    List<ObjectNode> pieces =
        taken.stream().filter(o -> o.path("check").asText().equals(check)).toList();
    if (check == null || pieces.isEmpty()) {
      HarnessAppview.send(ex, 404, HarnessAppview.error("NotFound", "no output of that check"));
      return;
    }
    String space = null;
    for (ObjectNode p : pieces) {
      if (p.hasNonNull("space")) {
        space = p.path("space").asText();
      }
    }
    if (space != null) {
      String refused = refusal(ex.getRequestHeaders().getFirst("Authorization"), space);
      if (refused != null) {
        int status = refused.startsWith("prove") ? 401 : 403;
        HarnessAppview.send(
            ex,
            status,
            HarnessAppview.error(
                status == 401 ? "AuthenticationRequired" : "NotMember",
                "the run is of a private repository: " + refused));
        return;
      }
    }
    StringBuilder text = new StringBuilder();
    long at = 0;
    ObjectNode last = pieces.get(pieces.size() - 1);
    for (ObjectNode p :
        pieces.stream()
            .sorted(java.util.Comparator.comparingLong((ObjectNode o) -> o.path("offset").asLong()))
            .toList()) {
      long offset = p.path("offset").asLong();
      byte[] bytes = p.path("text").asText("").getBytes(StandardCharsets.UTF_8);
      if (offset + bytes.length <= at) {
        continue;
      }
      int skip = (int) Math.max(0, at - offset);
      text.append(new String(bytes, skip, bytes.length - skip, StandardCharsets.UTF_8));
      at = offset + bytes.length;
    }
    ObjectNode out = JSON.createObjectNode();
    out.put("check", check);
    out.put("text", text.toString());
    out.set("steps", last.path("steps"));
    if (last.has("step")) {
      out.set("step", last.path("step"));
    }
    out.set("startedAt", last.path("startedAt"));
    out.put("ended", pieces.stream().anyMatch(p -> p.path("ended").asBoolean(false)));
    HarnessAppview.send(ex, 200, out);
  }

  /** Why the caller may not read a private run of {@code space}, or null when it is a member. */
  private String refusal(String authorization, String space) {
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      return "prove you are a member of " + space + " with a space credential";
    }
    URI host = spaceHost;
    if (host == null) {
      return "this appview knows no host to check members of " + space + " with";
    }
    HttpResponse<String> r;
    try {
      r =
          http.send(
              HttpRequest.newBuilder(
                      host.resolve(
                          "/xrpc/com.atproto.space.listRepos?space="
                              + URLEncoder.encode(space, StandardCharsets.UTF_8)))
                  .timeout(Duration.ofSeconds(5))
                  .header("Authorization", authorization)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return "its space's host did not answer: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    if (r.statusCode() == 200) {
      return null;
    }
    return "the credential does not make the caller a member of " + space;
  }

  /**
   * Asks {@code appview} for {@code check}'s output, as a reader proving membership with {@code
   * credential} (none when null) does.
   */
  public static HttpResponse<String> read(URI appview, String check, String credential)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
            URI.create(
                appview
                    + "/xrpc/"
                    + GET
                    + "?check="
                    + URLEncoder.encode(check, StandardCharsets.UTF_8)));
    if (credential != null) {
      b.header("Authorization", "Bearer " + credential);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
