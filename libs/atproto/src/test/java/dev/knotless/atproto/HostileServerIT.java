package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A server on 127.0.0.1 that answers every call with a body that never ends. */
class HostileServerIT {

  private HttpServer server;
  private final AtomicLong sent = new AtomicLong();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, 0); // chunked, no length
          byte[] chunk = new byte[1 << 16];
          java.util.Arrays.fill(chunk, (byte) ' ');
          try (OutputStream out = exchange.getResponseBody()) {
            out.write('{');
            // Endless, until the client hangs up.
            while (true) {
              out.write(chunk);
              sent.addAndGet(chunk.length);
            }
          } catch (java.io.IOException clientLeft) {
            // What the test wants: the client stopped reading.
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "blocking client: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void anEndlessReplyIsCutOffAtTheLimitAndTheCallFailsSayingSo(boolean blocking) {
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    XrpcClient client =
        blocking
            ? XrpcClient.create(
                url,
                new BlockingHttpClient(
                    ServiceAddresses.allowingLoopback().pinning(), java.time.Duration.ofSeconds(5)),
                XrpcObserver.NONE,
                ServiceAddresses.allowingLoopback())
            : XrpcClient.create(url);
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.getRecord("did:plc:abc", "dev.knotless.repo", "self"));
    assertTrue(
        String.valueOf(e.getMessage()).contains("over " + BoundedBodies.XRPC_REPLY_BYTES),
        e.getMessage());
    assertTrue(
        sent.get() < BoundedBodies.XRPC_REPLY_BYTES + (16L << 20),
        "the client read on past the limit: " + sent.get() + " bytes sent");
  }
}
