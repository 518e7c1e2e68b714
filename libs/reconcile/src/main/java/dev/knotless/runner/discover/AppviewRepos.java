package dev.knotless.runner.discover;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Printable;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identifiers;
import dev.knotless.storage.Keys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The appview's list of repositories whose record names a runner ({@code
 * dev.knotless.listRepos?runner=}), read page by page. It only says where to look: each is read
 * from its owner's PDS before it is watched. Thread-safe.
 */
public final class AppviewRepos {

  /** The query's NSID. */
  public static final String LIST_REPOS = "dev.knotless.listRepos";

  /** The most repositories read from one listing, so a lying appview cannot fill the heap. */
  static final int MAX = 100_000;

  private static final int PAGE = 100;

  private static final Logger LOG = LoggerFactory.getLogger(AppviewRepos.class);
  private static final int MAX_WARNED = 1000;

  private final XrpcClient appview;
  // Entries already warned of: a lying appview is logged once per entry, not every sweep.
  private final java.util.Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();

  public AppviewRepos(XrpcClient appview) {
    this.appview = appview;
  }

  /** One repository as listed: its owner's DID and its name. */
  public record Listed(String did, String name) {}

  /**
   * Every repository the appview says names {@code runner}.
   *
   * @throws IOException when the appview does not answer, or answers with something else
   */
  public List<Listed> list(String runner) throws IOException {
    List<Listed> out = new ArrayList<>();
    String cursor = null;
    while (out.size() < MAX) {
      Map<String, String> params = new HashMap<>();
      params.put("runner", runner);
      params.put("limit", String.valueOf(PAGE));
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      JsonNode page = appview.query(LIST_REPOS, params);
      JsonNode repos = page.path("repos");
      if (!repos.isArray()) {
        throw new IOException("the appview's " + LIST_REPOS + " answered without repos");
      }
      for (JsonNode r : repos) {
        String did = r.path("did").asText("");
        String name = r.path("name").asText("");
        try {
          // Checked here, before the name reaches a label, a path or a log line.
          out.add(new Listed(Identifiers.did(did), Keys.validateName(name)));
        } catch (IllegalArgumentException e) {
          String entry = Printable.escape(did) + "/" + Printable.escape(name);
          if (warned.size() < MAX_WARNED && warned.add(entry)) {
            LOG.warn("the appview listed {}, which is no repository: {}", entry, e.getMessage());
          }
        }
      }
      String next = page.path("cursor").asText(null);
      if (next == null || next.isEmpty() || repos.size() < PAGE || next.equals(cursor)) {
        return out;
      }
      cursor = next;
    }
    return out;
  }
}
