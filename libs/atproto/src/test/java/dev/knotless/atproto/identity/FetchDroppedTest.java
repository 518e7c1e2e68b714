package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.ServiceAddresses;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A GET whose connection ends before any byte of a reply, as a kept-alive connection its server
 * closed at the moment of reuse does, is sent once more after a short pause, beyond the JDK
 * client's own retry; a server that keeps doing so is named in the error after that.
 */
class FetchDroppedTest {

  /**
   * A server on 127.0.0.1 that reads each request and closes the connection unanswered the first
   * {@code drops} times, then answers {@code {"ok":true}}; counts the requests it read.
   */
  private static ServerSocket server(int drops, AtomicInteger asked) throws Exception {
    ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!ss.isClosed()) {
                try (Socket s = ss.accept()) {
                  BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                  for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) {
                    // The request's head, read whole.
                  }
                  if (asked.incrementAndGet() <= drops) {
                    continue;
                  }
                  byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.US_ASCII);
                  OutputStream out = s.getOutputStream();
                  out.write(
                      ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                              + "Content-Length: "
                              + body.length
                              + "\r\n\r\n")
                          .getBytes(StandardCharsets.US_ASCII));
                  out.write(body);
                  out.flush();
                } catch (Exception closed) {
                  // The test ended.
                }
              }
            },
            "fetch-dropped-server");
    t.setDaemon(true);
    t.start();
    return ss;
  }

  @Test
  void aConnectionDroppedBeforeAnyReplyIsAskedOnceMore() throws Exception {
    // The JDK's client asks a GET again once by itself when its connection drops unanswered; two
    // drops in a row are past what it does alone.
    AtomicInteger asked = new AtomicInteger();
    ServiceAddresses addresses = ServiceAddresses.allowingLoopback();
    try (ServerSocket ss = server(2, asked)) {
      URI uri = URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/did:plc:abc");
      var reply = Fetch.get(addresses.client(), addresses, uri, "application/json", "read it");
      assertEquals(200, reply.statusCode());
      assertEquals("{\"ok\":true}", reply.body());
      assertEquals(3, asked.get());
    }
  }

  @Test
  void aServerThatDropsEveryConnectionIsNamedAfterTheSecondTry() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    ServiceAddresses addresses = ServiceAddresses.allowingLoopback();
    try (ServerSocket ss = server(Integer.MAX_VALUE, asked)) {
      URI uri = URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/did:plc:abc");
      IdentityException e =
          assertThrows(
              IdentityException.class,
              () -> Fetch.get(addresses.client(), addresses, uri, "application/json", "read it"));
      assertTrue(
          e.getMessage().startsWith("could not reach " + uri + " to read it"), e.getMessage());
      // Two sends, each asked twice by the JDK's client: then it gives up.
      assertEquals(4, asked.get());
    }
  }
}
