package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The short-lived commands' client against a server on 127.0.0.1 that writes raw replies: what a
 * hostile or broken server sends comes back as an {@link XrpcException}, never as an unchecked
 * exception out of the call.
 */
class BlockingHttpClientIT {

  /** Answers one connection with {@code reply}, after reading the request's head. */
  private static ServerSocket serving(String reply) throws IOException {
    ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                int matched = 0;
                byte[] end = {'\r', '\n', '\r', '\n'};
                while (matched < 4) {
                  int b = in.read();
                  if (b < 0) {
                    return;
                  }
                  matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
                }
                OutputStream out = s.getOutputStream();
                out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
              } catch (IOException e) {
                // the test is over
              }
            });
    t.setDaemon(true);
    t.start();
    return server;
  }

  private static XrpcClient client(ServerSocket server) {
    ServiceAddresses addresses = ServiceAddresses.allowingLoopback();
    return XrpcClient.create(
        URI.create("http://127.0.0.1:" + server.getLocalPort()),
        new BlockingHttpClient(addresses.pinning(), Duration.ofSeconds(5)),
        XrpcObserver.NONE,
        addresses);
  }

  @Test
  void aHeaderNamedTwiceInDifferentCaseIsOneHeaderNotAFailure() throws Exception {
    try (ServerSocket server =
        serving(
            "HTTP/1.1 200 OK\r\nX-Twice: 1\r\nx-twice: 2\r\nContent-Type: application/json\r\n"
                + "Content-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}")) {
      assertEquals(
          true, client(server).query("dev.knotless.test", Map.of()).path("ok").asBoolean());
    }
  }

  @Test
  void aReplyThatIsNotHttpFailsTheCallSayingSo() throws Exception {
    try (ServerSocket server = serving("SSH-2.0-OpenSSH_9.2\r\n")) {
      XrpcException e =
          assertThrows(
              XrpcException.class, () -> client(server).query("dev.knotless.test", Map.of()));
      assertEquals(0, e.status(), e.getMessage());
    }
  }

  @Test
  void anErrorReplyToAPostKeepsItsBodyForTheCaller() throws Exception {
    try (ServerSocket server =
        serving(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\n"
                + "Content-Type: application/json\r\nContent-Length: 51\r\nConnection: close\r\n"
                + "\r\n{\"error\":\"ExpiredToken\",\"message\":\"Token expired\"}")) {
      XrpcException e =
          assertThrows(
              XrpcException.class,
              () -> client(server).procedure("dev.knotless.test", Json.object()));
      assertEquals(401, e.status());
      assertEquals("ExpiredToken", e.error());
      assertTrue(e.getMessage().contains("Token expired"), e.getMessage());
    }
  }
}
