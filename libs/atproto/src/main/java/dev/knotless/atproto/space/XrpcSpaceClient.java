package dev.knotless.atproto.space;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RepoBodies;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.WriteResult;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link SpaceClient} over XRPC, to the host that keeps the spaces (a space-capable PDS, or the
 * harness's space host), through an {@link XrpcClient} made with the process's address checks.
 *
 * <p>The caller proves who they are with a service token from their own PDS ({@code
 * com.atproto.server.getServiceAuth}, for the host's DID and the method): the owner on each call
 * that manages a space, and a member once per space for a space credential ({@code
 * com.atproto.space.getCredential}), which every record and blob call then carries. A credential is
 * asked for again a minute before it ends, or once when the host says it ended. Replies are checked
 * before use: a record from another repo than the one asked, a credential that would not fit a
 * header, a blob of another size than was sent are refused, naming the host. Thread-safe.
 */
public final class XrpcSpaceClient implements SpaceClient {
  static final String NS = "com.atproto.space.";
  private static final Duration EARLY = Duration.ofMinutes(1);
  private static final int MAX_CREDENTIAL = 4096;

  private final XrpcClient host;
  private final XrpcClient self;
  private final Clock clock;
  private final SpaceCredentials credentials;
  private volatile String hostDid;

  /**
   * @param host an anonymous client of the space host
   * @param self a client logged in to the caller's own PDS, which mints their service tokens
   */
  public XrpcSpaceClient(XrpcClient host, XrpcClient self, Clock clock) {
    this(host, self, clock, SpaceCredentials.inMemory());
  }

  /**
   * As {@link #XrpcSpaceClient(XrpcClient, XrpcClient, Clock)}, keeping credentials in {@code
   * credentials}.
   */
  public XrpcSpaceClient(
      XrpcClient host, XrpcClient self, Clock clock, SpaceCredentials credentials) {
    this.host = host;
    this.self = self;
    this.clock = clock;
    this.credentials = credentials;
  }

  @Override
  public String did() {
    return self.did();
  }

  // ---- managing a space (the owner, with a service token each call) ----------------------------

  @Override
  public SpaceId createSpace(String name) throws XrpcException {
    SpaceId wanted = new SpaceId(did(), name);
    JsonNode r = asSelf("createSpace", Json.object().put("name", name));
    if (!wanted.toString().equals(r.path("space").asText())) {
      throw hostile("createSpace", "answered for another space: " + clip(r.path("space")));
    }
    return wanted;
  }

  @Override
  public void deleteSpace(SpaceId space) throws XrpcException {
    asSelf("deleteSpace", Json.object().put("space", space.toString()));
    credentials.get(key(space)).ifPresent(h -> credentials.remove(key(space), h));
  }

  @Override
  public List<SpaceId> ownedSpaces() throws XrpcException {
    List<SpaceId> out = new ArrayList<>();
    for (JsonNode n : asSelf("listSpaces", Json.object()).path("spaces")) {
      SpaceId id;
      try {
        id = SpaceId.parse(n.asText(""));
      } catch (IllegalArgumentException e) {
        throw hostile("listSpaces", "named a space that is not one: " + clip(n));
      }
      if (!id.owner().equals(did())) {
        throw hostile("listSpaces", "named a space of another account: " + id);
      }
      out.add(id);
    }
    return out;
  }

  @Override
  public void addMember(SpaceId space, String did) throws XrpcException {
    asSelf("addMember", Json.object().put("space", space.toString()).put("did", did));
  }

  @Override
  public void removeMember(SpaceId space, String did) throws XrpcException {
    asSelf("removeMember", Json.object().put("space", space.toString()).put("did", did));
  }

  // ---- as a member, with the space credential ------------------------------------------------

  @Override
  public List<String> members(SpaceId space) throws XrpcException {
    JsonNode r = query(space, "listMembers", Map.of());
    List<String> out = new ArrayList<>();
    for (JsonNode m : r.path("members")) {
      out.add(did("listMembers", m));
    }
    return out;
  }

  @Override
  public List<WriteResult> applyWrites(SpaceId space, List<Write> writes) throws XrpcException {
    if (writes.isEmpty()) {
      return List.of();
    }
    ObjectNode body = Json.object().put("space", space.toString()).put("repo", did());
    JsonNode r =
        procedure(space, "applyWrites", RepoBodies.withWrites(body, NS + "applyWrites", writes));
    List<WriteResult> out = RepoBodies.writeResults(r);
    if (out.size() != writes.size()) {
      throw hostile("applyWrites", out.size() + " results for " + writes.size() + " writes");
    }
    return out;
  }

  @Override
  public WriteResult putRecord(SpaceId space, String collection, String rkey, ObjectNode value)
      throws XrpcException {
    ObjectNode body =
        Json.object()
            .put("space", space.toString())
            .put("repo", did())
            .put("collection", collection)
            .put("rkey", rkey);
    body.set("record", RepoBodies.typed(collection, value));
    return RepoBodies.writeResult(procedure(space, "putRecord", body));
  }

  @Override
  public Optional<Record> getRecord(SpaceId space, String repo, String collection, String rkey)
      throws XrpcException {
    Map<String, String> p = Map.of("repo", repo, "collection", collection, "rkey", rkey);
    JsonNode r;
    try {
      r = query(space, "getRecord", p);
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.RECORD_NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
    Record rec = record("getRecord", r, repo, collection);
    if (!rec.rkey().equals(rkey)) {
      throw hostile("getRecord", "answered with the record " + clip(r.path("uri")));
    }
    return Optional.of(rec);
  }

  @Override
  public RecordPage listRecords(
      SpaceId space, String repo, String collection, int limit, String cursor, boolean reverse)
      throws XrpcException {
    JsonNode r =
        query(
            space,
            "listRecords",
            RepoBodies.listRecordsParams(repo, collection, limit, cursor, reverse));
    List<Record> records = new ArrayList<>();
    for (JsonNode n : r.path("records")) {
      records.add(record("listRecords", n, repo, collection));
    }
    if (records.size() > limit) {
      throw hostile("listRecords", records.size() + " records for a page of " + limit);
    }
    return new RecordPage(records, r.path("cursor").isTextual() ? r.get("cursor").asText() : null);
  }

  @Override
  public BlobRef uploadBlob(SpaceId space, byte[] data, String mimeType) throws XrpcException {
    String m = NS + "uploadBlob";
    JsonNode r = withCredential(space, t -> host.uploadWith(t, m, data, mimeType));
    BlobRef ref;
    try {
      ref = BlobRef.fromJson(r.path("blob"));
    } catch (IllegalArgumentException e) {
      throw hostile("uploadBlob", e.getMessage());
    }
    if (ref.size() != data.length) {
      throw hostile("uploadBlob", "says " + ref.size() + " bytes of " + data.length + " sent");
    }
    return ref;
  }

  @Override
  public byte[] getBlob(SpaceId space, String repo, String cid, long maxBytes)
      throws XrpcException {
    String m = NS + "getBlob";
    Map<String, String> p = Map.of("space", space.toString(), "did", repo, "cid", cid);
    return withCredential(space, t -> host.bytesWith(t, m, p, maxBytes));
  }

  @Override
  public SpaceRepos listRepos(SpaceId space, String since) throws XrpcException {
    Map<String, String> p = new HashMap<>();
    p.put("since", since);
    JsonNode r = query(space, "listRepos", p);
    List<SpaceRepos.Repo> repos = new ArrayList<>();
    for (JsonNode n : r.path("repos")) {
      String rev = n.path("rev").asText("");
      if (rev.isEmpty()) {
        throw hostile("listRepos", "a repo with no revision");
      }
      repos.add(new SpaceRepos.Repo(did("listRepos", n.path("did")), rev));
    }
    String cursor = r.path("cursor").isTextual() ? r.get("cursor").asText() : since;
    return new SpaceRepos(repos, cursor);
  }

  @Override
  public Instant registerNotify(SpaceId space, String service) throws XrpcException {
    JsonNode r =
        procedure(
            space,
            "registerNotify",
            Json.object().put("space", space.toString()).put("service", service));
    try {
      Instant until = Instant.parse(r.path("expiresAt").asText());
      if (until.isAfter(clock.instant())) {
        return until;
      }
    } catch (java.time.format.DateTimeParseException e) {
      // refused below
    }
    throw hostile("registerNotify", "answered with no expiresAt time ahead: " + clip(r));
  }

  @Override
  public long blobUploadLimit() throws XrpcException {
    return host.describeServer().blobUploadLimit();
  }

  // ---- internals -------------------------------------------------------------------------------

  private interface Call<T> {
    T with(String credential) throws XrpcException;
  }

  private JsonNode query(SpaceId space, String name, Map<String, String> params)
      throws XrpcException {
    Map<String, String> p = new HashMap<>(params);
    p.put("space", space.toString());
    return withCredential(space, t -> host.queryWith(t, NS + name, p));
  }

  private JsonNode procedure(SpaceId space, String name, ObjectNode body) throws XrpcException {
    return withCredential(space, t -> host.procedureWith(t, NS + name, body));
  }

  /** Runs {@code call} with the space's credential, once more with a fresh one if it went stale. */
  private <T> T withCredential(SpaceId space, Call<T> call) throws XrpcException {
    SpaceCredentials.Held c = credential(space);
    try {
      return call.with(c.token());
    } catch (XrpcException e) {
      if (!SpaceErrors.staleCredential(e)) {
        throw e;
      }
      credentials.remove(key(space), c);
      return call.with(credential(space).token());
    }
  }

  /** Where this caller's credential for {@code space} at this host is kept. */
  private String key(SpaceId space) {
    return did() + " " + host.service() + " " + space;
  }

  private SpaceCredentials.Held credential(SpaceId space) throws XrpcException {
    Optional<SpaceCredentials.Held> kept = credentials.get(key(space));
    if (kept.isPresent() && clock.instant().plus(EARLY).isBefore(kept.get().expires())) {
      return kept.get();
    }
    JsonNode r = asSelf("getCredential", Json.object().put("space", space.toString()));
    String token = r.path("credential").asText("");
    if (token.isEmpty()
        || token.length() > MAX_CREDENTIAL
        || !token.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f)) {
      throw hostile("getCredential", "answered without a usable credential");
    }
    Instant expires;
    try {
      expires = Instant.parse(r.path("expiresAt").asText());
    } catch (java.time.format.DateTimeParseException e) {
      throw hostile("getCredential", "answered with no expiresAt time");
    }
    SpaceCredentials.Held fresh = new SpaceCredentials.Held(token, expires);
    credentials.put(key(space), fresh);
    return fresh;
  }

  /** A procedure carrying a service token of the caller's own PDS for exactly this method. */
  private JsonNode asSelf(String name, ObjectNode body) throws XrpcException {
    String method = NS + name;
    String token;
    try {
      token = self.serviceToken(hostDid(), method);
    } catch (XrpcException e) {
      throw SpaceErrors.loginRefused(e, method, self.loginKind()).orElse(e);
    }
    return host.procedureWith(token, method, body);
  }

  private String hostDid() throws XrpcException {
    String d = hostDid;
    if (d == null) {
      d = host.describeServer().did();
      if (d == null || !d.startsWith("did:")) {
        throw hostile("describeServer", "named no DID of its own");
      }
      hostDid = d;
    }
    return d;
  }

  private Record record(String method, JsonNode n, String repo, String collection)
      throws XrpcException {
    AtUri uri;
    try {
      uri = AtUri.parse(n.path("uri").asText(""));
    } catch (IllegalArgumentException e) {
      throw hostile(method, "a record with no usable uri: " + clip(n.path("uri")));
    }
    if (!uri.did().equals(repo) || !uri.collection().equals(collection)) {
      throw hostile(method, "answered with a record of another repo: " + uri);
    }
    if (!n.path("value").isObject()) {
      throw hostile(method, "the record " + uri + " has no value");
    }
    return new Record(uri.toString(), n.path("cid").asText(null), n.path("value"));
  }

  private XrpcException hostile(String method, String what) {
    return new XrpcException(
        NS + method, 200, "InvalidResponse", host.service() + " " + what, null, null);
  }

  private String did(String method, JsonNode n) throws XrpcException {
    String d = n.asText("");
    if (!d.startsWith("did:") || d.length() > 2048) {
      throw hostile(method, "named a member that is not a DID: " + clip(n));
    }
    return d;
  }

  private static String clip(JsonNode n) {
    String s = n.toString();
    return s.length() > 80 ? s.substring(0, 80) + "…" : s;
  }
}
