package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A client of one PDS: the {@code com.atproto.*} calls knotless makes, over {@code java.net.http}
 * with Jackson.
 *
 * <p>Anonymous until {@link #login} or {@link #resume}. Once logged in, the access token is
 * refreshed a minute before it expires, and once more if the server says it expired or is invalid;
 * concurrent callers share a single refresh. A refresh the server refuses logs in again when {@link
 * #reloginWith} gave credentials, and fails otherwise. Never sends {@code swapCommit}.
 *
 * <p>Thread-safe: one client serves every thread that talks to its PDS.
 */
public final class XrpcClient implements RecordStore {

  /** The most writes one {@code applyWrites} takes. */
  public static final int MAX_WRITES = RepoBodies.MAX_WRITES;

  /**
   * The longest one call waits for its whole reply, headers and body: 64 MiB (the most a reply
   * holds) at about 100 KiB/s. A server trickling its answer is given up at this point.
   */
  public static final Duration DEADLINE = Duration.ofMinutes(10);

  private final XrpcTransport transport;
  private final XrpcSessions sessions;

  private XrpcClient(XrpcTransport transport, Clock clock) {
    this.transport = transport;
    this.sessions = new XrpcSessions(transport, clock);
  }

  /** An anonymous client of the PDS at {@code pds}, sharing the process's HTTP client. */
  public static XrpcClient create(URI pds) {
    return create(pds, ServiceAddresses.process().client());
  }

  /** An anonymous client of {@code pds} sharing {@code http}. */
  public static XrpcClient create(URI pds, HttpClient http) {
    return create(pds, http, XrpcObserver.NONE);
  }

  /** An anonymous client that reports every call to {@code observer}. */
  public static XrpcClient create(URI pds, HttpClient http, XrpcObserver observer) {
    return create(pds, http, observer, ServiceAddresses.process());
  }

  /**
   * An anonymous client that reaches {@code pds} only where {@code addresses} allows: every call
   * first checks the server's address, and fails naming it when refused. The other factories use
   * {@link ServiceAddresses#process()}.
   */
  public static XrpcClient create(
      URI pds, HttpClient http, XrpcObserver observer, ServiceAddresses addresses) {
    return create(pds, http, observer, addresses, DEADLINE);
  }

  /**
   * As {@link #create(URI, HttpClient, XrpcObserver, ServiceAddresses)}, with every reply, its body
   * included, given up after {@code deadline} rather than {@link #DEADLINE}.
   */
  public static XrpcClient create(
      URI pds,
      HttpClient http,
      XrpcObserver observer,
      ServiceAddresses addresses,
      Duration deadline) {
    return new XrpcClient(
        new XrpcTransport(pds, http, Duration.ofMinutes(2), observer, addresses, deadline),
        Clock.systemUTC());
  }

  /** The PDS this client talks to. */
  @Override
  public URI service() {
    return transport.service();
  }

  /** Called with every new session (login and refresh), e.g. to save it. */
  public void onSession(Consumer<Session> listener) {
    sessions.onSession(listener);
  }

  /** Logs in with an identifier (handle, DID or email) and an app password. */
  public Session login(String identifier, String password) throws XrpcException {
    return sessions.login(identifier, password);
  }

  /** Uses a session saved earlier. */
  public void resume(Session s) {
    sessions.resume(s);
  }

  /**
   * Keeps an identifier and app password in memory, so that when the server refuses the session's
   * refresh (revoked, or expired after months unused) the client logs in again with them instead of
   * failing. The password is held only in this object and never passed to the session listener.
   */
  public void reloginWith(String identifier, String password) {
    sessions.reloginWith(identifier, password);
  }

  /**
   * Calls as an OAuth session's account from now on: every request carries its DPoP-bound access
   * token with a fresh proof, refreshed as {@code tokens} decides.
   */
  public void resume(BoundTokens tokens) {
    sessions.resume(tokens);
  }

  /** The kind of login this client calls with: "OAuth session", "app password" or "anonymous". */
  public String loginKind() {
    if (sessions.oauth() != null) {
      return "OAuth session";
    }
    return sessions.current() != null ? "app password" : "anonymous";
  }

  /** The current session, or empty when anonymous. */
  public Optional<Session> session() {
    return Optional.ofNullable(sessions.current());
  }

  /** The logged-in account's DID. */
  public String did() {
    BoundTokens bound = sessions.oauth();
    if (bound != null) {
      return bound.did();
    }
    Session s = sessions.current();
    if (s == null) {
      throw new IllegalStateException("not logged in");
    }
    return s.did();
  }

  /** Gets a new access token now. Concurrent callers share one refresh. */
  public Session refresh() throws XrpcException {
    return sessions.refresh();
  }

  // ---- generic calls -------------------------------------------------------------------------

  /** A query (GET). Null parameter values are left out. */
  public JsonNode query(String nsid, Map<String, String> params) throws XrpcException {
    return XrpcTransport.json(nsid, sessions.authed(token -> transport.get(nsid, params, token)));
  }

  /** A procedure (POST) with a JSON body. */
  public JsonNode procedure(String nsid, JsonNode body) throws XrpcException {
    return procedure(nsid, body, null);
  }

  /** As {@link #procedure(String, JsonNode)}, running {@code sent} as the transport says. */
  private JsonNode procedure(String nsid, JsonNode body, Runnable sent) throws XrpcException {
    byte[] bytes = Json.write(body);
    return XrpcTransport.json(
        nsid,
        sessions.authed(token -> transport.post(nsid, bytes, "application/json", token, sent)));
  }

  /**
   * A service token from the logged-in account's PDS ({@code com.atproto.server.getServiceAuth}):
   * proof, to the service whose DID is {@code aud}, that this account calls {@code lxm} there.
   */
  public String serviceToken(String aud, String lxm) throws XrpcException {
    String m = "com.atproto.server.getServiceAuth";
    String token = query(m, Map.of("aud", aud, "lxm", lxm)).path("token").asText("");
    if (token.isEmpty()) {
      throw new XrpcException(m, 200, "InvalidResponse", "answered without a token", null);
    }
    return token;
  }

  /** A query to this client's service carrying {@code token}, such as a service token. */
  public JsonNode queryWith(String token, String nsid, Map<String, String> params)
      throws XrpcException {
    return XrpcTransport.json(nsid, transport.get(nsid, params, AccessToken.bearer(token)));
  }

  /** A procedure to this client's service carrying {@code token}, such as a service token. */
  public JsonNode procedureWith(String token, String nsid, JsonNode body) throws XrpcException {
    return XrpcTransport.json(
        nsid,
        transport.post(nsid, Json.write(body), "application/json", AccessToken.bearer(token)));
  }

  /** A procedure to this client's service with a raw body (a blob), carrying {@code token}. */
  public JsonNode uploadWith(String token, String nsid, byte[] body, String mimeType)
      throws XrpcException {
    return XrpcTransport.json(
        nsid, transport.post(nsid, body, mimeType, AccessToken.bearer(token)));
  }

  /**
   * A query to this client's service carrying {@code token}, its reply's bytes (at most {@code
   * limit}).
   */
  public byte[] bytesWith(String token, String nsid, Map<String, String> params, long limit)
      throws XrpcException {
    long max = Math.min(limit, BoundedBodies.XRPC_REPLY_BYTES);
    return transport.get(nsid, params, AccessToken.bearer(token), max).body();
  }

  // ---- records ---------------------------------------------------------------------------------

  /** Reads one record; a missing one is an {@link XrpcException} of kind RECORD_NOT_FOUND. */
  public Record getRecord(String repo, String collection, String rkey) throws XrpcException {
    JsonNode r =
        query(
            "com.atproto.repo.getRecord",
            Map.of("repo", repo, "collection", collection, "rkey", rkey));
    return new Record(r.path("uri").asText(), r.path("cid").asText(null), r.path("value"));
  }

  /** Reads one record, or empty when it is not there. */
  @Override
  public Optional<Record> findRecord(String repo, String collection, String rkey)
      throws XrpcException {
    try {
      return Optional.of(getRecord(repo, collection, rkey));
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.RECORD_NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * One page of a collection. The reference PDS lists highest keys first unless {@code reverse},
   * and pages strictly below (above, reversed) the cursor.
   *
   * @param limit 1 to 100
   * @param cursor where to continue, or null
   */
  @Override
  public RecordPage listRecords(
      String repo, String collection, int limit, String cursor, boolean reverse)
      throws XrpcException {
    JsonNode r =
        query(
            "com.atproto.repo.listRecords",
            RepoBodies.listRecordsParams(repo, collection, limit, cursor, reverse));
    List<Record> records = new ArrayList<>();
    for (JsonNode n : r.path("records")) {
      records.add(new Record(n.path("uri").asText(), n.path("cid").asText(null), n.path("value")));
    }
    return new RecordPage(records, r.path("cursor").isTextual() ? r.get("cursor").asText() : null);
  }

  /** Writes all or none of {@code writes} (at most {@value #MAX_WRITES}) in one commit. */
  @Override
  public List<WriteResult> applyWrites(String repo, List<Write> writes) throws XrpcException {
    if (writes.isEmpty()) {
      return List.of();
    }
    String m = "com.atproto.repo.applyWrites";
    ObjectNode body = Json.object().put("repo", repo);
    return RepoBodies.writeResults(procedure(m, RepoBodies.withWrites(body, m, writes)));
  }

  /** Writes one record, guarded by {@code swap}. */
  public WriteResult putRecord(
      String repo, String collection, String rkey, ObjectNode value, Swap swap)
      throws XrpcException {
    return putRecord(repo, collection, rkey, value, swap, null);
  }

  /**
   * As {@link #putRecord(String, String, String, ObjectNode, Swap)}, running {@code sent} (if not
   * null) once the request has gone to the connection, before its reply: a write from another
   * thread that waits on it reaches the PDS after this one. Only the JDK's HTTP client runs it.
   */
  public WriteResult putRecord(
      String repo, String collection, String rkey, ObjectNode value, Swap swap, Runnable sent)
      throws XrpcException {
    ObjectNode body = Json.object();
    body.put("repo", repo);
    body.put("collection", collection);
    body.put("rkey", rkey);
    body.set("record", RepoBodies.typed(collection, value));
    if (swap instanceof Swap.Absent) {
      body.putNull("swapRecord");
    } else if (swap instanceof Swap.Cid c) {
      body.put("swapRecord", c.value());
    }
    return RepoBodies.writeResult(procedure("com.atproto.repo.putRecord", body, sent));
  }

  /** Deletes one record; deleting a missing one succeeds. */
  public void deleteRecord(String repo, String collection, String rkey) throws XrpcException {
    ObjectNode body = Json.object();
    body.put("repo", repo);
    body.put("collection", collection);
    body.put("rkey", rkey);
    procedure("com.atproto.repo.deleteRecord", body);
  }

  // ---- blobs and server ------------------------------------------------------------------------

  /** Uploads a blob. It stays only if a record references it. */
  @Override
  public BlobRef uploadBlob(byte[] data, String mimeType) throws XrpcException {
    String m = "com.atproto.repo.uploadBlob";
    JsonNode r = XrpcTransport.json(m, sessions.authed(t -> transport.post(m, data, mimeType, t)));
    return BlobRef.fromJson(r.path("blob"));
  }

  /**
   * Uploads a blob read from {@code data} as it is written, so the upload goes on while its
   * producer (a {@code git pack-objects}) is still at work. The session is refreshed as for any
   * call, but the stream is sent once: a second send (after a refused token) fails, and a rate
   * limit is only reported, so a caller that wants those sends the bytes again with {@link
   * #uploadBlob(byte[], String)}. The stream is closed when the request ends.
   */
  @Override
  public BlobRef uploadBlobStreamed(java.io.InputStream data, String mimeType)
      throws XrpcException {
    String m = "com.atproto.repo.uploadBlob";
    JsonNode r =
        XrpcTransport.json(m, sessions.authed(t -> transport.postStreamed(m, data, mimeType, t)));
    return BlobRef.fromJson(r.path("blob"));
  }

  /** Downloads a blob that a record of {@code did} references. */
  public byte[] getBlob(String did, String cid) throws XrpcException {
    return getBlob(did, cid, BoundedBodies.XRPC_REPLY_BYTES);
  }

  /**
   * Downloads a blob, reading at most {@code maxBytes} of it (the size its reference gives): a
   * server that answers with more fails the call at that point, saying so.
   */
  @Override
  public byte[] getBlob(String did, String cid, long maxBytes) throws XrpcException {
    String m = "com.atproto.sync.getBlob";
    long limit = Math.min(maxBytes, BoundedBodies.XRPC_REPLY_BYTES);
    return sessions.authed(t -> transport.get(m, Map.of("did", did, "cid", cid), t, limit)).body();
  }

  /**
   * Downloads a blob into {@code out} as it arrives, so the caller's consumer (a git {@code
   * index-pack}) works on its start while the rest is on the way. It must be {@code size} bytes
   * (its reference's size): a server that sends more fails the call at that point, one that sends
   * fewer after its last byte; nothing of an error reply reaches {@code out}. The whole reply is
   * under the client's deadline, as any other.
   *
   * @throws XrpcException also when writing to {@code out} fails (the consumer ended), naming it
   */
  @Override
  public void getBlobInto(String did, String cid, long size, java.io.OutputStream out)
      throws XrpcException {
    String m = "com.atproto.sync.getBlob";
    long limit = Math.min(size, BoundedBodies.XRPC_REPLY_BYTES);
    java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
    sessions.authed(
        t ->
            transport.get(
                m, Map.of("did", did, "cid", cid), t, BoundedBodies.into(out, limit, written)));
    if (written.get() != size) {
      throw new XrpcException(
          m,
          200,
          null,
          "the blob " + cid + " is " + written.get() + " bytes, but its reference says " + size,
          null,
          null);
    }
  }

  /** What the server says of itself, its blob limit included. */
  @Override
  public ServerDescription describeServer() throws XrpcException {
    JsonNode r = query("com.atproto.server.describeServer", Map.of());
    return new ServerDescription(r.path("did").asText(null), r.path("blobUploadLimit").asLong(0));
  }

  /** {@code com.atproto.repo.describeRepo}: handle, DID, DID document and collections. */
  public JsonNode describeRepo(String repo) throws XrpcException {
    return query("com.atproto.repo.describeRepo", Map.of("repo", repo));
  }
}
