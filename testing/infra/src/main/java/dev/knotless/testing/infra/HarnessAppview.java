package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An appview for the harness, on 127.0.0.1: it indexes every account's {@code dev.knotless.pull}
 * and {@code dev.knotless.state} records on a PDS by listing them (the PDS's {@code
 * com.atproto.sync.listRepos}, then each account's {@code com.atproto.repo.listRecords}), afresh on
 * every query, and answers {@code dev.knotless.listPulls} as its lexicon says: the pulls whose
 * {@code base} names the repository, oldest first, each with every state naming it, whoever wrote
 * it. It judges nothing: which states count is the caller's to decide. Thread-safe.
 */
public final class HarnessAppview implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE = 100;

  private final HttpServer server;
  private final XrpcClient pds;
  private final AtomicInteger queries = new AtomicInteger();
  private volatile boolean down;
  private final AtomicInteger refusedWhileDown = new AtomicInteger();
  private volatile String defaultRunner;
  private final java.util.Set<String> alsoListed =
      java.util.concurrent.ConcurrentHashMap.newKeySet();
  private AppviewSecretStore secrets;
  private AppviewInvites invites;
  private ServiceTokens tokens;
  private AppviewRunOutputs runOutputs;
  private String plcDid;
  private SpaceWriteRelay spaceWrites;

  private HarnessAppview(HttpServer server, XrpcClient pds) {
    this.server = server;
    this.pds = pds;
  }

  /** Starts one indexing the PDS at {@code pds}, on a free port of 127.0.0.1. */
  public static HarnessAppview start(URI pds) throws IOException {
    return start(pds, null);
  }

  /**
   * As {@link #start(URI)}, and with {@code plc} (the directory service tokens' issuers are
   * resolved in) it also keeps sealed secrets ({@link AppviewSecretStore}) and answers {@code
   * dev.knotless.describeServer}.
   */
  public static HarnessAppview start(URI pds, URI plc) throws IOException {
    return start(pds, plc, false);
  }

  /**
   * As {@link #start(URI, URI)}, with a {@code did:plc} of its own in that directory whose document
   * names its {@code #knotless_appview} service, so a space host can tell it of writes ({@code
   * com.atproto.space.notifyWrite}), which it passes on to runners ({@link SpaceWriteRelay}).
   */
  public static HarnessAppview startHearingSpaces(URI pds, URI plc) throws IOException {
    return start(pds, plc, true);
  }

  private static HarnessAppview start(URI pds, URI plc, boolean spaces) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    HarnessAppview a = new HarnessAppview(http, XrpcClient.create(pds));
    if (spaces) {
      // A long poll must not hold up every other call.
      http.setExecutor(
          java.util.concurrent.Executors.newCachedThreadPool(
              r -> {
                Thread t = new Thread(r, "harness-appview");
                t.setDaemon(true);
                return t;
              }));
      a.plcDid = PlcIdentity.create(plc, "knotless_appview", "KnotlessAppview", a.url());
    }
    http.createContext("/xrpc/dev.knotless.listPulls", a.unlessDown(a::listPulls));
    http.createContext("/xrpc/dev.knotless.listRepos", a.unlessDown(a::listRepos));
    if (plc != null) {
      ServiceTokens tokens =
          new ServiceTokens(
              new dev.knotless.atproto.identity.DidResolver(
                  plc, java.net.http.HttpClient.newHttpClient()),
              a.did(),
              java.time.Clock.systemUTC());
      a.secrets = new AppviewSecretStore(tokens);
      a.tokens = tokens;
      a.runOutputs = new AppviewRunOutputs(tokens);
      http.createContext("/xrpc/dev.knotless.putRunOutput", a.unlessDown(a.runOutputs::put));
      http.createContext("/xrpc/" + AppviewRunOutputs.GET, a.unlessDown(a.runOutputs::get));
      http.createContext("/xrpc/dev.knotless.describeServer", a.unlessDown(a::describeServer));
      http.createContext("/xrpc/dev.knotless.putSecret", a.unlessDown(a.secrets::put));
      http.createContext("/xrpc/dev.knotless.deleteSecret", a.unlessDown(a.secrets::delete));
      http.createContext("/xrpc/dev.knotless.listSecrets", a.unlessDown(a.secrets::list));
      a.invites = new AppviewInvites(tokens);
      if (spaces) {
        a.spaceWrites = new SpaceWriteRelay(tokens, a.invites::invitedByOwner);
        http.createContext(
            "/xrpc/com.atproto.space.notifyWrite", a.unlessDown(a.spaceWrites::notifyWrite));
        http.createContext("/xrpc/" + SpaceWriteRelay.AWAIT, a.unlessDown(a.spaceWrites::await));
      }
      http.createContext("/xrpc/dev.knotless.inviteRunner", a.unlessDown(a.invites::invite));
      http.createContext("/xrpc/dev.knotless.listRunnerInvites", a.unlessDown(a.invites::list));
    }
    http.start();
    return a;
  }

  /**
   * Its DID, the audience of the service tokens it takes: a did:web naming its port (never
   * resolved), or, hearing spaces, its did:plc.
   */
  public String did() {
    if (plcDid != null) {
      return plcDid;
    }
    return "did:web:appview-" + server.getAddress().getPort() + ".test";
  }

  /** The sealed secrets it keeps (started with a PLC only). */
  public AppviewSecretStore secrets() {
    return secrets;
  }

  /** The runners' invites it keeps (started with a PLC only). */
  public AppviewInvites invites() {
    return invites;
  }

  /** Makes every method answer 503 (true) or answer again (false), as an appview that is down. */
  public void setDown(boolean down) {
    this.down = down;
    if (spaceWrites != null) {
      // A long poll waiting then breaks, as its connection to an appview gone down would.
      spaceWrites.setDown(down);
    }
  }

  /** How many calls it refused while down. */
  public int refusedWhileDown() {
    return refusedWhileDown.get();
  }

  /**
   * Forgets the space writes it was told of, as an appview restarted does: each runner's next await
   * is answered at once, saying it may have missed some (started hearing spaces only).
   */
  public void restartSpaceWrites() {
    spaceWrites.restart();
  }

  /**
   * Takes {@code com.atproto.space.notifyWrite} signed by the space host {@code hostDid} (started
   * hearing spaces only): one signed by anyone else, or not signed, is refused and logged.
   */
  public void hearSpacesFrom(String hostDid) {
    spaceWrites.hearFrom(hostDid);
  }

  /** Why each notifyWrite refused was (the line logged), in order. */
  public List<String> refusedNotifications() {
    return spaceWrites.refused();
  }

  /** How many space writes were passed on to {@code runner} (started hearing spaces only). */
  public int spaceWritesPassedTo(String runner) {
    return spaceWrites.passedTo(runner);
  }

  /** The runner describeServer names as new repositories' default, or null for none. */
  public void setDefaultRunner(String did) {
    this.defaultRunner = did;
  }

  private com.sun.net.httpserver.HttpHandler unlessDown(com.sun.net.httpserver.HttpHandler h) {
    return ex -> {
      if (down) {
        refusedWhileDown.incrementAndGet();
        try (ex) {
          send(ex, 503, error("Unavailable", "the appview is down"));
        }
        return;
      }
      try (ex) {
        h.handle(ex);
      } catch (RuntimeException e) {
        send(ex, 500, error("InternalServerError", e.toString()));
      }
    };
  }

  /**
   * Has listRepos also list {@code <did>/<name>} for every runner, whatever its record says, as an
   * appview that lies would.
   */
  public void alsoList(String did, String name) {
    alsoListed.add(did + "/" + name);
  }

  /**
   * {@code dev.knotless.listRepos}: every account's repository records, read afresh, and with
   * {@code runner} only those naming it in {@code runners}; one page holds them all.
   */
  private void listRepos(HttpExchange ex) throws IOException {
    String runner = params(ex.getRequestURI().getRawQuery()).get("runner");
    ObjectNode out = JSON.createObjectNode();
    ArrayNode list = out.putArray("repos");
    java.util.Set<String> listed = new java.util.HashSet<>();
    for (String account : accounts()) {
      for (Record r : all(account, "dev.knotless.repo")) {
        boolean names = runner == null;
        for (JsonNode n : r.value().path("runners")) {
          names |= n.asText().equals(runner);
        }
        if (names) {
          listed.add(account + "/" + r.rkey());
          list.addObject()
              .put("uri", r.uri())
              .put("did", account)
              .put("name", r.rkey())
              .put("key", r.value().path("key").asText(""));
        }
      }
    }
    for (String extra : alsoListed) {
      if (listed.add(extra)) {
        int slash = extra.indexOf('/');
        String did = extra.substring(0, slash);
        String name = extra.substring(slash + 1);
        list.addObject()
            .put("uri", "at://" + did + "/dev.knotless.repo/" + name)
            .put("did", did)
            .put("name", name);
      }
    }
    queries.incrementAndGet();
    send(ex, 200, out);
  }

  /**
   * Every {@code dev.knotless.putRunOutput} taken (started with a PLC only), in the order taken:
   * the call's body, with {@code iss}, the caller its service token named, added.
   */
  public List<ObjectNode> runOutputs() {
    return runOutputs.taken();
  }

  /**
   * Has {@code dev.knotless.getRunOutput} show a private repository's run to a caller whose space
   * credential {@code spaceHost} takes for its space (started with a PLC only); without it, none.
   */
  public void checkMembersAt(URI spaceHost) {
    runOutputs.checkMembersAt(spaceHost);
  }

  private void describeServer(HttpExchange ex) throws IOException {
    ObjectNode out = JSON.createObjectNode();
    out.put("did", did());
    if (defaultRunner != null) {
      out.put("defaultRunner", defaultRunner);
    }
    send(ex, 200, out);
  }

  /** Where it listens: the value of {@code KNOTLESS_APPVIEW}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** How many listPulls and listRepos queries it answered. */
  public int queries() {
    return queries.get();
  }

  private void listPulls(HttpExchange ex) throws IOException {
    try (ex) {
      Map<String, String> q = params(ex.getRequestURI().getRawQuery());
      String did = q.get("did");
      String key = q.get("key");
      if (did == null || key == null) {
        send(ex, 400, error("InvalidRequest", "did and key are required"));
        return;
      }
      int limit = Math.max(1, Math.min(100, Integer.parseInt(q.getOrDefault("limit", "50"))));
      int from = q.containsKey("cursor") ? Integer.parseInt(q.get("cursor")) : 0;
      List<ObjectNode> pulls;
      try {
        pulls = index(did, key);
      } catch (IOException e) {
        send(ex, 502, error("UpstreamFailure", "the PDS did not answer: " + e.getMessage()));
        return;
      }
      ObjectNode out = JSON.createObjectNode();
      ArrayNode page = out.putArray("pulls");
      for (int i = from; i < Math.min(pulls.size(), from + limit); i++) {
        page.add(pulls.get(i));
      }
      if (from + limit < pulls.size()) {
        out.put("cursor", String.valueOf(from + limit));
      }
      queries.incrementAndGet();
      send(ex, 200, out);
    } catch (RuntimeException e) {
      send(ex, 500, error("InternalServerError", e.toString()));
    }
  }

  /** Reads every account's pulls and states, and views the pulls into the repository. */
  private List<ObjectNode> index(String did, String key) throws IOException {
    List<Record> pullRecords = new ArrayList<>();
    List<Record> states = new ArrayList<>();
    for (String account : accounts()) {
      pullRecords.addAll(all(account, "dev.knotless.pull"));
      states.addAll(all(account, "dev.knotless.state"));
    }
    Map<String, ArrayNode> statesByPull = new HashMap<>();
    for (Record s : states) {
      ObjectNode view = JSON.createObjectNode();
      view.put("uri", s.uri());
      view.put("author", authority(s.uri()));
      view.put("state", s.value().path("state").asText(""));
      view.put("createdAt", s.value().path("createdAt").asText(""));
      statesByPull
          .computeIfAbsent(s.value().path("pull").asText(""), u -> JSON.createArrayNode())
          .add(view);
    }
    List<ObjectNode> out = new ArrayList<>();
    pullRecords.sort(Comparator.comparing(r -> r.rkey()));
    for (Record p : pullRecords) {
      JsonNode base = p.value().path("base");
      String repo = base.path("repo").asText("");
      if (!repo.startsWith("at://" + did + "/") || !key.equals(base.path("key").asText())) {
        continue;
      }
      ObjectNode view = JSON.createObjectNode();
      view.put("uri", p.uri());
      view.put("author", authority(p.uri()));
      view.set("record", p.value());
      view.set("states", statesByPull.getOrDefault(p.uri(), JSON.createArrayNode()));
      out.add(view);
    }
    return out;
  }

  private List<String> accounts() throws IOException {
    List<String> dids = new ArrayList<>();
    String cursor = null;
    while (true) {
      Map<String, String> p = new HashMap<>();
      p.put("limit", "1000");
      if (cursor != null) {
        p.put("cursor", cursor);
      }
      JsonNode page = pds.query("com.atproto.sync.listRepos", p);
      for (JsonNode r : page.path("repos")) {
        if (r.path("active").asBoolean(true)) {
          dids.add(r.path("did").asText());
        }
      }
      String next = page.path("cursor").asText(null);
      if (next == null || page.path("repos").isEmpty()) {
        return dids;
      }
      cursor = next;
    }
  }

  private List<Record> all(String account, String collection) throws IOException {
    List<Record> out = new ArrayList<>();
    String cursor = null;
    while (true) {
      RecordPage page = pds.listRecords(account, collection, PAGE, cursor, false);
      out.addAll(page.records());
      if (page.records().size() < PAGE || page.cursor() == null) {
        return out;
      }
      cursor = page.cursor();
    }
  }

  private static String authority(String uri) {
    String rest = uri.substring("at://".length());
    return rest.substring(0, rest.indexOf('/'));
  }

  static Map<String, String> params(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) {
      return out;
    }
    for (String kv : raw.split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        out.put(
            URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  static ObjectNode error(String error, String message) {
    ObjectNode n = JSON.createObjectNode();
    n.put("error", error);
    n.put("message", message);
    return n;
  }

  static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
