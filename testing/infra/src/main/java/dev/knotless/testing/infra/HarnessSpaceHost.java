package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.identity.DidResolver;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * A host of permissioned spaces for the harness, on 127.0.0.1, beside the reference PDS (which has
 * no {@code com.atproto.space.*}): our reading of the methods, as docs/private.md describes. An
 * owner manages a space with a service token from their PDS for each call; a member trades one for
 * a space credential ({@code getCredential}, an hour long), which every record and blob call
 * carries, and membership is checked again on each. Kept in memory. Thread-safe: one lock.
 */
public final class HarnessSpaceHost implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "com.atproto.space.";

  /** How long a space credential lasts. */
  public static final Duration CREDENTIAL = Duration.ofHours(1);

  private final HttpServer server;
  private final ServiceTokens tokens;
  private final SpaceStore store = new SpaceStore();
  private final GivenCredentials credentials;
  private final SpaceNotifier notifier;

  private interface Handler {
    JsonNode handle(HttpExchange ex, Map<String, String> q) throws IOException, SpaceStore.Refusal;
  }

  private final PlcIdentity.Signing identity;

  private HarnessSpaceHost(HttpServer server, URI plc, Clock clock, Clock notifyClock)
      throws IOException {
    this.server = server;
    this.credentials = new GivenCredentials(clock, CREDENTIAL);
    // A did:plc of its own, whose key signs the notifications it sends. Its document names it as
    // a PDS, where spaces are expected to live (and what a DID resolver asks a document to name).
    this.identity =
        PlcIdentity.createSigning(plc, "atproto_pds", "AtprotoPersonalDataServer", url());
    this.notifier = new SpaceNotifier(plc, notifyClock, identity);
    this.tokens =
        new ServiceTokens(
            new DidResolver(plc, java.net.http.HttpClient.newHttpClient()), did(), clock);
  }

  /** Starts one whose callers' DIDs resolve in the PLC directory at {@code plc}. */
  public static HarnessSpaceHost start(URI plc) throws IOException {
    return start(plc, Clock.systemUTC());
  }

  /** As {@link #start(URI)}, keeping {@code registerNotify}'s asks by {@code notifyClock}. */
  public static HarnessSpaceHost start(URI plc, Clock notifyClock) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    HarnessSpaceHost h = new HarnessSpaceHost(http, plc, Clock.systemUTC(), notifyClock);
    h.route("com.atproto.server.describeServer", (ex, q) -> h.describe());
    h.route(NS + "createSpace", h::createSpace);
    h.route(NS + "deleteSpace", h::deleteSpace);
    h.route(NS + "listSpaces", h::listSpaces);
    h.route(NS + "addMember", (ex, q) -> h.membership(ex, true));
    h.route(NS + "removeMember", (ex, q) -> h.membership(ex, false));
    h.route(NS + "getCredential", h::getCredential);
    h.route(NS + "listMembers", h::listMembers);
    h.route(NS + "applyWrites", h::applyWrites);
    h.route(NS + "putRecord", h::putRecord);
    h.route(NS + "getRecord", h::getRecord);
    h.route(NS + "listRecords", h::listRecords);
    h.route(NS + "uploadBlob", h::uploadBlob);
    h.route(NS + "listRepos", h::listRepos);
    h.route(NS + "registerNotify", h::registerNotify);
    http.createContext("/xrpc/" + NS + "getBlob", h::getBlob);
    http.start();
    return h;
  }

  /** Where it answers. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /**
   * A space credential for {@code space}, as {@code who} (logged in on {@code pds} with OAuth, as a
   * member must be) gets one from this host: what a member shows a reader such as the appview.
   */
  public String credential(
      dev.knotless.testing.PdsInstance pds, dev.knotless.testing.Account who, String space)
      throws IOException {
    dev.knotless.atproto.XrpcClient self = HarnessOAuth.client(pds, who);
    String method = "com.atproto.space.getCredential";
    JsonNode r =
        dev.knotless.atproto.XrpcClient.create(url())
            .procedureWith(
                self.serviceToken(did(), method),
                method,
                new ObjectMapper().createObjectNode().put("space", space));
    return r.path("credential").asText();
  }

  /**
   * Its DID, a did:plc in the test PLC: the audience of the service tokens it takes, and the issuer
   * of those its notifications carry.
   */
  public String did() {
    return identity.did();
  }

  /**
   * Tells {@code service} ({@code <did>#<id>}), signed as this host, that {@code repo} wrote in
   * {@code space} for {@code forDids}, whether or not anything was written: a host's word a runner
   * must still judge. Delivered as every notification is, in turn.
   */
  public void notifyWrite(
      String service, String space, String repo, java.util.List<String> forDids) {
    notifier.tell(service, space, repo, 1, forDids);
  }

  /** Whether the space {@code <owner did>/<name>} is there. */
  public synchronized boolean exists(String space) {
    return store.exists(space);
  }

  /** How many records {@code did} holds in the space, every collection counted (0 if none). */
  public synchronized int records(String space, String did) throws IOException {
    try {
      SpaceStore.Repo r = store.space(space).repos.get(did);
      return r == null ? 0 : r.records.values().stream().mapToInt(Map::size).sum();
    } catch (SpaceStore.Refusal e) {
      throw new IOException(e.getMessage());
    }
  }

  /** How many write notifications a registered service took, and how many it did not. */
  public int[] notifications() {
    return new int[] {notifier.delivered(), notifier.undelivered()};
  }

  /** How many space credentials it has given. */
  public synchronized int credentialsGiven() {
    return credentials.given();
  }

  /** How many blobs {@code did} holds in the space (0 if none). */
  public synchronized int blobs(String space, String did) throws IOException {
    try {
      SpaceStore.Repo r = store.space(space).repos.get(did);
      return r == null ? 0 : r.blobs.size();
    } catch (SpaceStore.Refusal e) {
      throw new IOException(e.getMessage());
    }
  }

  private void route(String method, Handler h) {
    server.createContext(
        "/xrpc/" + method,
        ex -> {
          // The exchange is closed after the reply, refusals included: not by a try-with-resources
          // around the catches, which would close it before they answer.
          try {
            Map<String, String> q = HarnessAppview.params(ex.getRequestURI().getRawQuery());
            JsonNode out;
            synchronized (this) {
              out = h.handle(ex, q);
            }
            HarnessAppview.send(ex, 200, out);
          } catch (SpaceStore.Refusal r) {
            HarnessAppview.send(ex, r.status, HarnessAppview.error(r.error, r.getMessage()));
          } catch (RuntimeException e) {
            HarnessAppview.send(ex, 400, HarnessAppview.error("InvalidRequest", e.toString()));
          } catch (IOException | Error e) {
            HarnessAppview.send(ex, 500, HarnessAppview.error("InternalServerError", e.toString()));
          } finally {
            ex.close();
          }
        });
  }

  private JsonNode describe() {
    return JSON.createObjectNode().put("did", did()).put("blobUploadLimit", 5_000_000);
  }

  /** The DID a service token for exactly this method speaks for. */
  private String owner(HttpExchange ex, String method) throws SpaceStore.Refusal {
    try {
      return tokens.verify(ex.getRequestHeaders().getFirst("Authorization"), method);
    } catch (ServiceTokens.Refused r) {
      throw new SpaceStore.Refusal(401, "AuthRequired", r.getMessage());
    }
  }

  /** The member a space credential speaks for, checked against the space named and membership. */
  private String member(HttpExchange ex, String space) throws SpaceStore.Refusal {
    return credentials.member(ex.getRequestHeaders().getFirst("Authorization"), space, store);
  }

  private static JsonNode body(HttpExchange ex) throws IOException {
    return JSON.readTree(ex.getRequestBody().readAllBytes());
  }

  private JsonNode createSpace(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    String did = owner(ex, NS + "createSpace");
    String name = body(ex).path("name").asText("");
    new dev.knotless.atproto.space.SpaceId(did, name);
    store.create(did, name);
    return JSON.createObjectNode().put("space", did + "/" + name);
  }

  private JsonNode deleteSpace(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    String did = owner(ex, NS + "deleteSpace");
    String space = body(ex).path("space").asText("");
    store.owned(space, did);
    store.delete(space);
    notifier.forget(space);
    credentials.forget(space);
    return JSON.createObjectNode();
  }

  private JsonNode listSpaces(HttpExchange ex, Map<String, String> q) throws SpaceStore.Refusal {
    String did = owner(ex, NS + "listSpaces");
    ObjectNode out = JSON.createObjectNode();
    store.ownedBy(did).forEach(out.putArray("spaces")::add);
    return out;
  }

  private JsonNode membership(HttpExchange ex, boolean add) throws IOException, SpaceStore.Refusal {
    String did = owner(ex, NS + (add ? "addMember" : "removeMember"));
    JsonNode b = body(ex);
    SpaceStore.Space s = store.owned(b.path("space").asText(""), did);
    String who = b.path("did").asText("");
    if (!who.startsWith("did:")) {
      throw new SpaceStore.Refusal(400, "InvalidRequest", "not a DID: " + who);
    }
    if (add) {
      s.members.add(who);
    } else if (who.equals(s.owner)) {
      throw new SpaceStore.Refusal(400, "InvalidRequest", "the owner stays a member");
    } else {
      s.members.remove(who);
    }
    return JSON.createObjectNode();
  }

  private JsonNode getCredential(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    String did = owner(ex, NS + "getCredential");
    String space = body(ex).path("space").asText("");
    store.membered(space, did);
    GivenCredentials.Credential c = credentials.give(space, did);
    return JSON.createObjectNode()
        .put("credential", c.token())
        .put("expiresAt", c.expires().toString());
  }

  private JsonNode listMembers(HttpExchange ex, Map<String, String> q) throws SpaceStore.Refusal {
    member(ex, q.get("space"));
    ObjectNode out = JSON.createObjectNode();
    store.space(q.get("space")).members.forEach(out.putArray("members")::add);
    return out;
  }

  private JsonNode applyWrites(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    JsonNode b = body(ex);
    String space = b.path("space").asText("");
    String did = member(ex, space);
    if (!did.equals(b.path("repo").asText())) {
      throw new SpaceStore.Refusal(403, "InvalidRequest", did + " writes only its own repo");
    }
    ObjectNode out = JSON.createObjectNode();
    store
        .apply(store.space(space), space, did, b.path("writes"))
        .forEach(out.putArray("results")::add);
    written(space, did);
    return out;
  }

  private JsonNode putRecord(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    JsonNode b = body(ex);
    String space = b.path("space").asText("");
    String did = member(ex, space);
    ObjectNode w = JSON.createObjectNode();
    w.put("$type", NS + "applyWrites#update");
    w.put("collection", b.path("collection").asText(""));
    w.put("rkey", b.path("rkey").asText(""));
    w.set("value", b.path("record"));
    JsonNode out =
        store.apply(store.space(space), space, did, JSON.createArrayNode().add(w)).get(0);
    written(space, did);
    return out;
  }

  private JsonNode getRecord(HttpExchange ex, Map<String, String> q) throws SpaceStore.Refusal {
    member(ex, q.get("space"));
    String did = q.get("repo");
    String collection = q.get("collection");
    ObjectNode v = store.record(store.space(q.get("space")), did, collection, q.get("rkey"));
    ObjectNode out = JSON.createObjectNode();
    out.put("uri", "at://" + did + "/" + collection + "/" + q.get("rkey"));
    out.set("value", v);
    return out;
  }

  private JsonNode listRecords(HttpExchange ex, Map<String, String> q) throws SpaceStore.Refusal {
    member(ex, q.get("space"));
    String did = q.get("repo");
    String collection = q.get("collection");
    int limit = Math.max(1, Math.min(100, Integer.parseInt(q.getOrDefault("limit", "50"))));
    boolean reverse = "true".equals(q.get("reverse"));
    var page =
        store.page(store.space(q.get("space")), did, collection, limit, q.get("cursor"), reverse);
    ObjectNode out = JSON.createObjectNode();
    var arr = out.putArray("records");
    for (var e : page) {
      ObjectNode r = arr.addObject();
      r.put("uri", "at://" + did + "/" + collection + "/" + e.getKey());
      r.set("value", e.getValue());
    }
    if (!page.isEmpty()) {
      out.put("cursor", page.get(page.size() - 1).getKey());
    }
    return out;
  }

  private JsonNode uploadBlob(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    String did = member(ex, null);
    String space = credentials.spaceOf(ex.getRequestHeaders().getFirst("Authorization"));
    byte[] data = ex.getRequestBody().readAllBytes();
    String cid = store.putBlob(store.space(space), did, data);
    ObjectNode out = JSON.createObjectNode();
    ObjectNode blob = out.putObject("blob");
    blob.put("$type", "blob");
    blob.putObject("ref").put("$link", cid);
    blob.put("mimeType", ex.getRequestHeaders().getFirst("Content-Type"));
    blob.put("size", data.length);
    return out;
  }

  private void getBlob(HttpExchange ex) throws IOException {
    try {
      Map<String, String> q = HarnessAppview.params(ex.getRequestURI().getRawQuery());
      byte[] data;
      try {
        synchronized (this) {
          member(ex, q.get("space"));
          data = store.blob(store.space(q.get("space")), q.get("did"), q.get("cid"));
        }
      } catch (SpaceStore.Refusal r) {
        HarnessAppview.send(ex, r.status, HarnessAppview.error(r.error, r.getMessage()));
        return;
      }
      ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
      ex.sendResponseHeaders(200, data.length);
      try (OutputStream o = ex.getResponseBody()) {
        o.write(data);
      }
    } finally {
      ex.close();
    }
  }

  private JsonNode listRepos(HttpExchange ex, Map<String, String> q) throws SpaceStore.Refusal {
    member(ex, q.get("space"));
    long since = q.get("since") == null ? 0 : Long.parseLong(q.get("since"));
    Map<String, Long> changed = new TreeMap<>();
    long now = store.changed(store.space(q.get("space")), since, changed);
    ObjectNode out = JSON.createObjectNode();
    var arr = out.putArray("repos");
    changed.forEach((did, rev) -> arr.addObject().put("did", did).put("rev", Long.toString(rev)));
    out.put("cursor", Long.toString(now));
    return out;
  }

  /** Has the services members registered in the space told that {@code did} wrote there. */
  private void written(String space, String did) throws SpaceStore.Refusal {
    long rev = store.space(space).repos.get(did).seq;
    notifier.written(space, did, rev, (s, m) -> store.exists(s) && isMember(s, m));
  }

  private boolean isMember(String space, String did) {
    try {
      return store.space(space).members.contains(did);
    } catch (SpaceStore.Refusal r) {
      return false;
    }
  }

  /** {@code registerNotify}: a member asks that a service be told of the space's writes. */
  private JsonNode registerNotify(HttpExchange ex, Map<String, String> q)
      throws IOException, SpaceStore.Refusal {
    JsonNode b = body(ex);
    String space = b.path("space").asText("");
    String did = member(ex, space);
    Instant until = notifier.register(space, did, b.path("service").asText(""));
    return JSON.createObjectNode().put("expiresAt", until.toString());
  }

  @Override
  public void close() {
    notifier.close();
    server.stop(0);
  }
}
