package dev.knotless.runner.pullpass;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.pull.PullState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The appview's list of a repository's pulls ({@code dev.knotless.listPulls}), read page by page.
 * The appview only says what exists: which pulls are open, and whose code they bring, the runner
 * decides from the repository record it reads itself. Thread-safe.
 */
public final class AppviewPulls {

  /** The query's NSID. */
  public static final String LIST_PULLS = "dev.knotless.listPulls";

  private static final int PAGE = 100;

  private final XrpcClient appview;

  /** Reads from the appview {@code appview} reaches (KNOTLESS_APPVIEW). */
  public AppviewPulls(XrpcClient appview) {
    this.appview = appview;
  }

  /**
   * One pull as the appview lists it.
   *
   * @param uri the pull record's AT-URI
   * @param record the pull record as the appview indexed it
   * @param states every state record naming it, whoever wrote it
   */
  public record Listed(String uri, JsonNode record, List<PullState> states) {
    public Listed {
      states = List.copyOf(states);
    }
  }

  /**
   * Every pull into the repository {@code key} of {@code did}.
   *
   * @throws IOException when the appview does not answer, or answers with something else
   */
  public List<Listed> list(String did, String key) throws IOException {
    List<Listed> out = new ArrayList<>();
    String cursor = null;
    while (true) {
      Map<String, String> params = new HashMap<>();
      params.put("did", did);
      params.put("key", key);
      params.put("limit", String.valueOf(PAGE));
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      JsonNode page = appview.query(LIST_PULLS, params);
      JsonNode pulls = page.path("pulls");
      if (!pulls.isArray()) {
        throw new IOException("the appview's " + LIST_PULLS + " answered without pulls");
      }
      for (JsonNode p : pulls) {
        List<PullState> states = new ArrayList<>();
        for (JsonNode s : p.path("states")) {
          states.add(
              new PullState(
                  s.path("uri").asText(""),
                  s.path("author").asText(""),
                  s.path("state").asText(""),
                  s.path("createdAt").asText("")));
        }
        out.add(new Listed(p.path("uri").asText(""), p.path("record"), states));
      }
      String next = page.path("cursor").asText(null);
      if (next == null || next.isEmpty() || pulls.size() < PAGE || next.equals(cursor)) {
        return out;
      }
      cursor = next;
    }
  }
}
