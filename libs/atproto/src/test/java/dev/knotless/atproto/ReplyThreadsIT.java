package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a reply costs the calling process in threads, on the JDK's HTTP client, against a server on
 * 127.0.0.1 that answers {@code getRecord} at once and {@code listRecords} never.
 */
class ReplyThreadsIT {

  private HttpServer server;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] record =
        "{\"uri\":\"at://did:plc:abc/dev.knotless.repo/self\",\"value\":{}}"
            .getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/xrpc/com.atproto.repo.getRecord",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, record.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(record);
          }
        });
    server.createContext(
        "/xrpc/com.atproto.repo.listRecords",
        exchange -> {
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private XrpcClient client(Duration deadline) {
    return XrpcClient.create(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
        XrpcObserver.NONE,
        ServiceAddresses.allowingLoopback(),
        deadline);
  }

  @Test
  void repliesComeBackWithoutANewThreadEach() throws Exception {
    XrpcClient client = client(Duration.ofSeconds(30));
    client.getRecord("did:plc:abc", "dev.knotless.repo", "self");
    long before = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
    for (int i = 0; i < 200; i++) {
      client.getRecord("did:plc:abc", "dev.knotless.repo", "self");
    }
    long started = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount() - before;
    // The server's own pool and the client's few workers; a thread a reply would be 200 or more.
    assertTrue(started < 50, started + " threads started for 200 replies");
  }

  @Test
  void aDeadlineThatGaveUpLeavesTheCallerUninterruptedForItsNextRequest() throws Exception {
    XrpcClient client = client(Duration.ofSeconds(1));
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.listRecords("did:plc:abc", "dev.knotless.ref", 10, null, false));
    assertTrue(e.getMessage().contains("did not end within 1 s"), e.getMessage());
    assertFalse(Thread.currentThread().isInterrupted(), "the deadline's interrupt was left set");
    assertEquals(
        "at://did:plc:abc/dev.knotless.repo/self",
        client.getRecord("did:plc:abc", "dev.knotless.repo", "self").uri());
  }
}
