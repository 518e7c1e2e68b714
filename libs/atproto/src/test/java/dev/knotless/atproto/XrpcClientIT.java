package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

@WithPds
class XrpcClientIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String REF = "dev.knotless.ref";

  private final PdsInstance pds;

  XrpcClientIT(PdsInstance pds) {
    this.pds = pds;
  }

  /** Whether the clients are the short-lived commands' ({@link BlockingHttpClient}). */
  boolean blocking() {
    return false;
  }

  /** A client of {@code url}, on the JDK's HTTP client or, for the subclass, the blocking one. */
  XrpcClient create(java.net.URI url) {
    if (!blocking()) {
      return XrpcClient.create(url);
    }
    ServiceAddresses addresses = ServiceAddresses.process();
    return XrpcClient.create(
        url,
        new BlockingHttpClient(addresses.pinning(), java.time.Duration.ofSeconds(10)),
        XrpcObserver.NONE,
        addresses);
  }

  private XrpcClient loggedIn(Account a) throws XrpcException {
    XrpcClient c = create(pds.pdsUrl());
    c.login(a.handle(), a.password());
    return c;
  }

  private static ObjectNode ref(String name, long generation) {
    ObjectNode n = JSON.createObjectNode();
    n.put("name", name);
    n.put("generation", generation);
    return n;
  }

  @Test
  void loginByHandleGivesTheAccountsDid() throws Exception {
    Account a = pds.createAccount("login");
    XrpcClient c = loggedIn(a);
    assertEquals(a.did(), c.did());
    assertTrue(c.session().orElseThrow().accessExpiry().isAfter(java.time.Instant.now()));
    assertFalse(
        c.session().orElseThrow().toString().contains("eyJ"), "tokens stay out of toString");
  }

  @Test
  void aWrongPasswordIsAnAuthError() {
    Account a = pds.createAccount("badpw");
    XrpcException e =
        assertThrows(
            XrpcException.class, () -> create(pds.pdsUrl()).login(a.handle(), "not-the-password"));
    assertEquals(XrpcException.Kind.AUTH, e.kind());
    assertEquals(401, e.status());
  }

  @Test
  void recordsAreCreatedReadListedUpdatedAndDeleted() throws Exception {
    Account a = pds.createAccount("records");
    XrpcClient c = loggedIn(a);
    List<WriteResult> results =
        c.applyWrites(
            a.did(),
            List.of(
                Write.create(REF, "k.a", ref("refs/heads/a", 1)),
                Write.create(REF, "k.b", ref("refs/heads/b", 1)),
                Write.create(REF, "k.c", ref("refs/heads/c", 1))));
    assertEquals(3, results.size());
    assertTrue(results.get(0).uri().endsWith("/dev.knotless.ref/k.a"));

    Record b = c.getRecord(a.did(), REF, "k.b");
    assertEquals("refs/heads/b", b.value().path("name").asText());
    assertEquals(REF, b.value().path("$type").asText());
    assertEquals("k.b", b.rkey());

    RecordPage desc = c.listRecords(a.did(), REF, 2, null, false);
    assertEquals(List.of("k.c", "k.b"), desc.records().stream().map(Record::rkey).toList());
    RecordPage next = c.listRecords(a.did(), REF, 2, desc.cursor(), false);
    assertEquals(List.of("k.a"), next.records().stream().map(Record::rkey).toList());
    RecordPage asc = c.listRecords(a.did(), REF, 100, null, true);
    assertEquals(List.of("k.a", "k.b", "k.c"), asc.records().stream().map(Record::rkey).toList());

    c.applyWrites(
        a.did(),
        List.of(Write.update(REF, "k.a", ref("refs/heads/a", 2)), Write.delete(REF, "k.c")));
    assertEquals(2, c.getRecord(a.did(), REF, "k.a").value().path("generation").asLong());
    assertTrue(c.findRecord(a.did(), REF, "k.c").isEmpty());

    c.deleteRecord(a.did(), REF, "k.b");
    assertTrue(c.findRecord(a.did(), REF, "k.b").isEmpty());
  }

  @Test
  void aMissingRecordIsRecordNotFound() throws Exception {
    Account a = pds.createAccount("missing");
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> create(pds.pdsUrl()).getRecord(a.did(), REF, "nothing.here"));
    assertEquals(XrpcException.Kind.RECORD_NOT_FOUND, e.kind());
    assertEquals(400, e.status());
  }

  @Test
  void aDuplicateCreateIsAServerErrorThatCallersCanRetryOrReread() throws Exception {
    Account a = pds.createAccount("dup");
    XrpcClient c = loggedIn(a);
    c.applyWrites(a.did(), List.of(Write.create(REF, "k.dup", ref("x", 1))));
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> c.applyWrites(a.did(), List.of(Write.create(REF, "k.dup", ref("x", 2)))));
    assertEquals(XrpcException.Kind.SERVER_ERROR, e.kind());
    assertEquals(500, e.status());
    assertEquals(1, c.getRecord(a.did(), REF, "k.dup").value().path("generation").asLong());
  }

  @Test
  void moreThanTwoHundredWritesAreRefusedBeforeAnythingIsSent() throws Exception {
    Account a = pds.createAccount("many");
    XrpcClient c = loggedIn(a);
    List<Write> writes = new ArrayList<>();
    for (int i = 0; i < 201; i++) {
      writes.add(Write.create(REF, "k." + i, ref("r" + i, 1)));
    }
    assertThrows(IllegalArgumentException.class, () -> c.applyWrites(a.did(), writes));
    assertEquals(200, c.applyWrites(a.did(), writes.subList(0, 200)).size());
  }

  @Test
  void putRecordWithANullSwapCreatesOnlyWhenAbsent() throws Exception {
    Account a = pds.createAccount("swap");
    XrpcClient c = loggedIn(a);
    WriteResult first =
        c.putRecord(a.did(), "dev.knotless.repo", "demo", ref("one", 1), Swap.absent());
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> c.putRecord(a.did(), "dev.knotless.repo", "demo", ref("two", 1), Swap.absent()));
    assertEquals(XrpcException.Kind.INVALID_SWAP, e.kind());

    WriteResult second =
        c.putRecord(a.did(), "dev.knotless.repo", "demo", ref("two", 2), Swap.cid(first.cid()));
    assertNotEquals(first.cid(), second.cid());
    XrpcException stale =
        assertThrows(
            XrpcException.class,
            () ->
                c.putRecord(
                    a.did(), "dev.knotless.repo", "demo", ref("three", 3), Swap.cid(first.cid())));
    assertEquals(XrpcException.Kind.INVALID_SWAP, stale.kind());
    c.putRecord(a.did(), "dev.knotless.repo", "demo", ref("four", 4), Swap.none());
    assertEquals(
        "four", c.getRecord(a.did(), "dev.knotless.repo", "demo").value().path("name").asText());
  }

  @Test
  void aRecordsCidIsKnownBeforeTheWriteSoTheNextWriteCanBeGuardedOnIt() throws Exception {
    Account a = pds.createAccount("cid");
    XrpcClient c = loggedIn(a);
    BlobRef log = c.uploadBlob("==> ok\n".getBytes(StandardCharsets.UTF_8), "text/plain");
    ObjectNode check = JSON.createObjectNode();
    check.put("$type", "dev.knotless.check");
    check.put("workflow", "ci \u2713 \u00e9t\u00e9");
    check.put("status", "queued");
    check.put("createdAt", "2026-12-03T22:10:00.123Z");
    check.put("generation", 4294967296L);
    check.put("offset", -25);
    check.put("flaky", false);
    ObjectNode step = check.putArray("steps").addObject();
    step.put("status", "queued");
    step.put("name", "build");
    check.set("log", log.toJson());
    check.putArray("outputs");
    String ahead = RecordCid.of(check);

    WriteResult queued = c.putRecord(a.did(), "dev.knotless.check", "k1", check, Swap.none());
    assertEquals(queued.cid(), ahead, "the PDS names the record as worked out before");
    ObjectNode running = check.deepCopy().put("status", "running");
    WriteResult next = c.putRecord(a.did(), "dev.knotless.check", "k1", running, Swap.cid(ahead));
    assertEquals(RecordCid.of(running), next.cid());
  }

  @Test
  void aBlobReferencedByARecordComesBackByteForByte() throws Exception {
    Account a = pds.createAccount("blob");
    XrpcClient c = loggedIn(a);
    byte[] data = "PACK and some bytes \u0000\u0001".getBytes(StandardCharsets.UTF_8);
    BlobRef blob = c.uploadBlob(data, "application/x-git-packed-objects");
    assertEquals(data.length, blob.size());
    ObjectNode pack = JSON.createObjectNode();
    pack.putArray("parts").add(blob.toJson());
    c.applyWrites(a.did(), List.of(Write.create("dev.knotless.pack", "k.p", pack)));
    assertArrayEquals(data, create(pds.pdsUrl()).getBlob(a.did(), blob.cid()));
  }

  @Test
  void aBlobStreamedAsItIsWrittenGoesOutBeforeItsEndAndArrivesWhole() throws Exception {
    Account a = pds.createAccount("streamed");
    byte[] data = new byte[1_500_000];
    new java.util.Random(11).nextBytes(data);
    try (ByteRelay relay = new ByteRelay(pds.pdsUrl())) {
      XrpcClient c = create(relay.url());
      c.login(a.handle(), a.password());
      java.io.PipedInputStream in = new java.io.PipedInputStream(64 * 1024);
      java.io.PipedOutputStream out = new java.io.PipedOutputStream(in);
      ExecutorService writer = Executors.newSingleThreadExecutor();
      try {
        long before = relay.upstream();
        Future<Boolean> written =
            writer.submit(
                () -> {
                  try (out) {
                    out.write(data, 0, 1_000_000);
                    out.flush();
                    // The rest only once the PDS side has most of the first part: a client that
                    // gathered the body before sending any of it would never get here.
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (relay.upstream() - before < 900_000) {
                      if (System.nanoTime() > deadline) {
                        return false;
                      }
                      Thread.sleep(5);
                    }
                    out.write(data, 1_000_000, data.length - 1_000_000);
                    return true;
                  }
                });
        BlobRef streamed = c.uploadBlobStreamed(in, "application/x-git-packed-objects");
        assertTrue(written.get(), "the first bytes went out before the body ended");
        assertEquals(data.length, streamed.size());
        assertEquals(
            c.uploadBlob(data, "application/x-git-packed-objects").cid(),
            streamed.cid(),
            "the same bytes as the whole array");
      } finally {
        writer.shutdownNow();
      }
    }
  }

  /** A TCP relay to a server on 127.0.0.1 that counts the bytes it passes on to it. */
  static final class ByteRelay implements AutoCloseable {
    private final java.net.ServerSocket server;
    private final java.net.URI target;
    private final java.util.concurrent.atomic.AtomicLong upstream =
        new java.util.concurrent.atomic.AtomicLong();
    private final ExecutorService pumps = Executors.newCachedThreadPool();

    ByteRelay(java.net.URI target) throws java.io.IOException {
      this.target = target;
      this.server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
      pumps.submit(this::accept);
    }

    java.net.URI url() {
      return java.net.URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    long upstream() {
      return upstream.get();
    }

    private Void accept() {
      while (!server.isClosed()) {
        try {
          java.net.Socket client = server.accept();
          java.net.Socket pds = new java.net.Socket(target.getHost(), target.getPort());
          pumps.submit(() -> pump(client, pds, true));
          pumps.submit(() -> pump(pds, client, false));
        } catch (java.io.IOException e) {
          return null;
        }
      }
      return null;
    }

    private Void pump(java.net.Socket from, java.net.Socket to, boolean up) {
      byte[] buf = new byte[16 * 1024];
      try (from;
          to) {
        java.io.InputStream in = from.getInputStream();
        java.io.OutputStream out = to.getOutputStream();
        for (int n; (n = in.read(buf)) >= 0; ) {
          out.write(buf, 0, n);
          out.flush();
          if (up) {
            upstream.addAndGet(n);
          }
        }
      } catch (java.io.IOException e) {
        // one side closed: the pair ends
      }
      return null;
    }

    @Override
    public void close() throws java.io.IOException {
      server.close();
      pumps.shutdownNow();
    }
  }

  @Test
  void aBlobStreamsIntoAStreamByteForByteAndAMissingOneWritesNothing() throws Exception {
    Account a = pds.createAccount("blobinto");
    XrpcClient c = loggedIn(a);
    byte[] data = new byte[300_000];
    new java.util.Random(7).nextBytes(data);
    BlobRef blob = c.uploadBlob(data, "application/x-git-packed-objects");
    ObjectNode pack = JSON.createObjectNode();
    pack.putArray("parts").add(blob.toJson());
    c.applyWrites(a.did(), List.of(Write.create("dev.knotless.pack", "k.p", pack)));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    create(pds.pdsUrl()).getBlobInto(a.did(), blob.cid(), data.length, out);
    assertArrayEquals(data, out.toByteArray());

    java.io.ByteArrayOutputStream none = new java.io.ByteArrayOutputStream();
    String missing = "bafkreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm";
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> create(pds.pdsUrl()).getBlobInto(a.did(), missing, 10, none));
    assertTrue(e.status() >= 400, e.getMessage());
    assertEquals(0, none.size(), "nothing of the error reply was written");
  }

  @Test
  void theServerAdvertisesItsBlobLimitAndDescribesRepos() throws Exception {
    Account a = pds.createAccount("describe");
    XrpcClient anon = create(pds.pdsUrl());
    assertEquals(pds.blobUploadLimit(), anon.describeServer().blobUploadLimit());
    assertEquals(a.did(), anon.describeRepo(a.handle()).path("did").asText());
  }

  @Test
  void concurrentCallersWithAnExpiredTokenShareOneRefresh() throws Exception {
    Account a = pds.createAccount("refresh");
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      XrpcClient c = create(proxy.url());
      Session real = c.login(a.handle(), a.password());
      c.resume(new Session(real.did(), real.handle(), expiredJwt(), real.refreshJwt()));
      proxy.reset();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<Record>> reads = new ArrayList<>();
        c.applyWrites(a.did(), List.of(Write.create(REF, "k.r", ref("r", 1))));
        for (int i = 0; i < 8; i++) {
          reads.add(pool.submit(() -> c.getRecord(a.did(), REF, "k.r")));
        }
        for (Future<Record> f : reads) {
          assertEquals("r", f.get().value().path("name").asText());
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(1, proxy.requests("com.atproto.server.refreshSession"));
      assertNotEquals(expiredJwt(), c.session().orElseThrow().accessJwt());
    }
  }

  @Test
  void anUnreachableServerIsNoStatusAndRetryable() {
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> create(java.net.URI.create("http://127.0.0.1:9")).describeServer());
    assertEquals(XrpcException.Kind.NO_STATUS, e.kind());
    assertTrue(e.retryable());
    assertNull(e.error());
  }

  @Test
  void theHealthProbeSaysUpForTheRealPdsAndDownForAClosedPort() {
    PdsHealth.Result up = PdsHealth.probe(pds.pdsUrl());
    assertTrue(up.up(), up.toString());
    assertEquals(200, up.status());
    PdsHealth.Result down = PdsHealth.probe(java.net.URI.create("http://127.0.0.1:9"));
    assertFalse(down.up());
    assertEquals(0, down.status());
  }

  private static String expiredJwt() {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"HS256\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + b64.encodeToString("{\"exp\":1000}".getBytes(StandardCharsets.UTF_8))
        + ".c2ln";
  }
}
