package dev.knotless.atproto;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an https connection to a checked server is made: a CONNECT tunnel on this JVM's loopback
 * that the HTTP clients use as their proxy ({@link ServiceAddresses#pinning()}). For each
 * connection it resolves the server's name once, checks every address it got, and connects to the
 * first of those addresses, so the connection goes to an address that was checked, whatever the
 * name answers a moment later (DNS rebinding). TLS stays end to end between the client and the
 * server (the tunnel only passes bytes), with the server's name in SNI and in the certificate
 * check.
 *
 * <p>Java 17's HTTP client resolves names itself and offers no hook at connect time; a proxy is the
 * one place it hands a connection's target to code of ours before connecting. The tunnel listens on
 * 127.0.0.1 only and reaches only what {@link ServiceAddresses} allows, so a local process using it
 * gets nothing it could not reach directly. One tunnel per {@link ServiceAddresses}, made on first
 * use; its threads are daemons.
 */
final class PinnedTunnel {
  private static final Logger LOG = LoggerFactory.getLogger(PinnedTunnel.class);
  private static final int MAX_HEAD = 8192;
  private static final int TIMEOUT_MILLIS = 10_000;

  private final ServiceAddresses addresses;
  private final ServerSocket server;
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "knotless-pinned-tunnel");
            t.setDaemon(true);
            return t;
          });

  PinnedTunnel(ServiceAddresses addresses) throws IOException {
    this.addresses = addresses;
    this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  /** Where the clients' proxy is. */
  InetSocketAddress address() {
    return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        threads.execute(() -> serve(client));
      } catch (IOException e) {
        if (!server.isClosed()) {
          LOG.warn("pinned tunnel: accept failed: {}", e.getMessage());
        }
      }
    }
  }

  private void serve(Socket client) {
    Socket upstream = null;
    try {
      client.setSoTimeout(TIMEOUT_MILLIS);
      String head = readHead(client.getInputStream());
      String[] line = head.split("\r\n", 2)[0].split(" ");
      if (line.length != 3 || !line[0].equals("CONNECT")) {
        answer(client, "405 Method Not Allowed");
        return;
      }
      int colon = line[1].lastIndexOf(':');
      String host = line[1].substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = Integer.parseInt(line[1].substring(colon + 1));
      InetSocketAddress target;
      try {
        target = addresses.pin(host, port);
      } catch (ServiceAddresses.Refused e) {
        LOG.warn("connection refused at connect time: {}", e.getMessage());
        answer(client, "403 Forbidden");
        return;
      } catch (java.net.UnknownHostException e) {
        answer(client, "502 Bad Gateway");
        return;
      }
      upstream = new Socket();
      upstream.connect(target, TIMEOUT_MILLIS);
      answer(client, "200 Connection established");
      client.setSoTimeout(0);
      Socket up = upstream;
      Future<?> down = threads.submit(() -> pipe(up, client));
      pipe(client, up);
      down.get();
    } catch (Exception e) {
      LOG.debug("pinned tunnel: {}", e.toString());
    } finally {
      closeQuietly(upstream);
      closeQuietly(client);
    }
  }

  /** Copies until {@code from} ends, then ends {@code to}'s output; an error closes both. */
  private static void pipe(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buffer = new byte[16384];
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException e) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < 4) {
      int b = in.read();
      if (b < 0 || head.size() >= MAX_HEAD) {
        throw new IOException("no CONNECT request head");
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private static void answer(Socket client, String status) throws IOException {
    client
        .getOutputStream()
        .write(("HTTP/1.1 " + status + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    client.getOutputStream().flush();
  }

  private static void closeQuietly(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
