package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A service's login at start waits out a PDS that is not answering yet, and no more. */
class PdsLoginTest {

  /** A PDS whose createSession answers {@code failures} times with {@code status}, then logs in. */
  private static HttpServer pds(int failures, int status, AtomicInteger calls) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/xrpc/com.atproto.server.createSession",
        ex -> {
          ex.getRequestBody().readAllBytes();
          int n = calls.incrementAndGet();
          byte[] body =
              (n <= failures
                      ? "{\"error\":\"Busy\",\"message\":\"try later\"}"
                      : "{\"did\":\"did:plc:runner\",\"handle\":\"runner.test\","
                          + "\"accessJwt\":\"a\",\"refreshJwt\":\"r\"}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(n <= failures ? status : 200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    return server;
  }

  private static XrpcClient client(HttpServer server) {
    return XrpcClient.create(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"));
  }

  @Test
  void aPdsThatAnswers503TwiceIsAskedAgainUntilItLogsIn() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    HttpServer server = pds(2, 503, calls);
    try {
      XrpcClient runner = client(server);
      PdsAccess.loginUntilAnswered(runner, "runner.test", "pw", Duration.ofSeconds(30));
      assertEquals("did:plc:runner", runner.did());
      assertEquals(3, calls.get(), "two refusals, then the login");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aWrongPasswordEndsAtOnce() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    HttpServer server = pds(1, 401, calls);
    try {
      XrpcException e =
          assertThrows(
              XrpcException.class,
              () ->
                  PdsAccess.loginUntilAnswered(
                      client(server), "runner.test", "wrong", Duration.ofSeconds(30)));
      assertEquals(401, e.status());
      assertEquals(1, calls.get(), "a refusal is not asked again");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aPdsThatNeverAnswersIsGivenUpOnAfterThePatience() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    HttpServer server = pds(Integer.MAX_VALUE, 502, calls);
    try {
      long start = System.nanoTime();
      assertThrows(
          XrpcException.class,
          () ->
              PdsAccess.loginUntilAnswered(
                  client(server), "runner.test", "pw", Duration.ofSeconds(4)));
      long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
      assertEquals(true, calls.get() >= 2, "asked again at least once: " + calls.get());
      // No pause is begun that would end past the patience; the last call's own time is extra.
      assertEquals(true, took < 4000 + 2000, "gave up at its patience: " + took + " ms");
    } finally {
      server.stop(0);
    }
  }
}
