package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server on 127.0.0.1 that answers at once and then trickles its body a byte every 100 ms,
 * forever, and one that sends a blob longer than its reference says (or, asked for the DID
 * "trickle", a blob a byte every 100 ms, forever).
 */
class TricklingServerIT {

  private HttpServer server;
  private final CountDownLatch hungUp = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/xrpc/com.atproto.repo.getRecord",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, 0);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write('{');
            out.flush();
            while (true) {
              Thread.sleep(100);
              out.write(' ');
              out.flush();
            }
          } catch (java.io.IOException | InterruptedException clientLeft) {
            hungUp.countDown();
          }
        });
    server.createContext(
        "/xrpc/com.atproto.sync.getBlob",
        exchange -> {
          if (exchange.getRequestURI().getQuery().contains("did=trickle")) {
            // A byte every 100 ms, forever.
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
              while (true) {
                out.write('x');
                out.flush();
                Thread.sleep(100);
              }
            } catch (java.io.IOException | InterruptedException clientLeft) {
              hungUp.countDown();
            }
            return;
          }
          exchange.sendResponseHeaders(200, 100_000);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(new byte[100_000]);
          } catch (java.io.IOException clientLeft) {
            // what the test wants
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "blocking client: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void aReplyTricklingInSlowlyIsGivenUpAtItsDeadlineSayingSo(boolean blocking) throws Exception {
    XrpcClient client = client(blocking, Duration.ofSeconds(2));
    long start = System.nanoTime();
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.getRecord("did:plc:abc", "dev.knotless.repo", "self"));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(
        e.getMessage().contains("did not end within 2 s (headers and body together)"),
        e.getMessage());
    assertTrue(millis >= 2000 && millis < 6000, millis + " ms");
    assertTrue(hungUp.await(10, TimeUnit.SECONDS), "the client kept the connection reading");
  }

  @Test
  void aBlobLongerThanItsReferenceSaysIsCutAtThatSize() {
    XrpcClient client = XrpcClient.create(url());
    XrpcException e =
        assertThrows(XrpcException.class, () -> client.getBlob("did:plc:abc", "bafy", 1000));
    assertTrue(e.getMessage().contains("over 1000 bytes"), e.getMessage());
  }

  /** A client of the test server, on the JDK's HTTP client or the blocking one. */
  private XrpcClient client(boolean blocking, Duration deadline) {
    return XrpcClient.create(
        url(),
        blocking
            ? new BlockingHttpClient(
                ServiceAddresses.allowingLoopback().pinning(), Duration.ofSeconds(5))
            : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
        XrpcObserver.NONE,
        ServiceAddresses.allowingLoopback(),
        deadline);
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "blocking client: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void aBlobStreamedLongerThanItsReferenceSaysIsCutAtThatSize(boolean blocking) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () ->
                client(blocking, Duration.ofSeconds(10))
                    .getBlobInto("did:plc:abc", "bafy", 1000, out));
    assertTrue(e.getMessage().contains("over 1000 bytes"), e.getMessage());
    assertTrue(out.size() <= 1000, out.size() + " bytes written");
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "blocking client: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void aBlobStreamedShorterThanItsReferenceSaysFailsNamingBothSizes(boolean blocking) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () ->
                client(blocking, Duration.ofSeconds(10))
                    .getBlobInto("did:plc:abc", "bafy", 200_000, out));
    assertTrue(
        e.getMessage().contains("is 100000 bytes, but its reference says 200000"), e.getMessage());
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "blocking client: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void aBlobTricklingInIsGivenUpAtTheDeadlineWithWhatCameWritten(boolean blocking)
      throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    long start = System.nanoTime();
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () ->
                client(blocking, Duration.ofSeconds(2))
                    .getBlobInto("trickle", "bafy", 1 << 20, out));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(e.getMessage().contains("did not end within 2 s"), e.getMessage());
    assertTrue(millis >= 2000 && millis < 6000, millis + " ms");
    assertTrue(hungUp.await(10, TimeUnit.SECONDS), "the client kept the connection reading");
  }
}
