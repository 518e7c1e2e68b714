package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DNS rebinding: a name that answers a public address when the runner checks it and 127.0.0.1 when
 * the connection is made. The connection goes through the pinning tunnel, which resolves once at
 * connect time, checks what it got and connects only there; so the request is refused and the
 * loopback server behind the second answer never sees a connection. And the tunnel's own path: a
 * real TLS server reached by name through it, the certificate checked against that name. Each runs
 * with both clients: the JDK's, and the one short-lived commands use ({@link BlockingHttpClient}).
 */
class DnsRebindingIT {
  private static final String PASS = "changeit";

  /** The client under test, through {@code addresses}' tunnel, trusting {@code tls} if given. */
  private static HttpClient client(boolean blocking, ServiceAddresses addresses, SSLContext tls) {
    if (blocking) {
      return new BlockingHttpClient(addresses.pinning(), Duration.ofSeconds(5), tls);
    }
    HttpClient.Builder b =
        addresses
            .clientBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5));
    return (tls == null ? b : b.sslContext(tls)).build();
  }

  @ParameterizedTest(name = "blocking client: {0}")
  @ValueSource(booleans = {false, true})
  void aNameThatRebindsToLoopbackAfterTheCheckIsNotConnectedTo(boolean blocking) throws Exception {
    try (ServerSocket loopback = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(loopback.accept());
                  }
                } catch (java.io.IOException closed) {
                  // the test is over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      AtomicInteger asked = new AtomicInteger();
      ServiceAddresses.Resolver rebinding =
          host -> {
            if (!host.equals("rebind.example")) {
              throw new java.net.UnknownHostException(host);
            }
            // First the public address the check sees, then loopback for whoever asks next.
            return asked.getAndIncrement() == 0
                ? new InetAddress[] {InetAddress.getByName("93.184.215.14")}
                : new InetAddress[] {InetAddress.getLoopbackAddress()};
          };
      ServiceAddresses addresses = ServiceAddresses.strict().withResolver(rebinding);
      HttpClient http = client(blocking, addresses, null);
      XrpcClient client =
          XrpcClient.create(
              URI.create("https://rebind.example:" + loopback.getLocalPort()),
              http,
              XrpcObserver.NONE,
              addresses);
      XrpcException e = assertThrows(XrpcException.class, client::describeServer);
      assertEquals(2, asked.get(), "checked before the request, resolved again to connect");
      assertTrue(String.valueOf(e.getMessage()).contains("403"), e.getMessage());
      Thread.sleep(200); // a connection, had one been made, would be accepted by now
      assertEquals(List.of(), accepted, "nothing reached the loopback server");
    }
  }

  @ParameterizedTest(name = "blocking client: {0}")
  @ValueSource(booleans = {false, true})
  void httpsThroughTheTunnelReachesTheAddressCheckedWithTheCertificateCheckedByName(
      boolean blocking, @TempDir Path dir) throws Exception {
    Path keystore = dir.resolve("pds.p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "pds",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=pds.example",
                "-ext",
                "SAN=dns:pds.example",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                PASS,
                "-keypass",
                PASS)
            .redirectErrorStream(true)
            .start();
    String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, keytool.waitFor(), out);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(keystore.toFile())) {
      ks.load(in, PASS.toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, PASS.toCharArray());
    SSLContext serverTls = SSLContext.getInstance("TLS");
    serverTls.init(kmf.getKeyManagers(), null, null);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext clientTls = SSLContext.getInstance("TLS");
    clientTls.init(null, tmf.getTrustManagers(), null);

    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
    server.createContext(
        "/xrpc/_health",
        exchange -> {
          byte[] body = "{\"version\":\"pinned\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      AtomicInteger asked = new AtomicInteger();
      ServiceAddresses addresses =
          ServiceAddresses.allowingLoopback()
              .withResolver(
                  host -> {
                    asked.incrementAndGet();
                    if (!host.equals("pds.example")) {
                      throw new java.net.UnknownHostException(host);
                    }
                    return new InetAddress[] {InetAddress.getLoopbackAddress()};
                  });
      HttpClient http = client(blocking, addresses, clientTls);
      URI uri =
          URI.create("https://pds.example:" + server.getAddress().getPort() + "/xrpc/_health");
      addresses.check(uri, "the test PDS");
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r =
            http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals("{\"version\":\"pinned\"}", r.body());
      }
      // pds.example has no address but the resolver's: the connection went where it was pinned.
      assertTrue(asked.get() >= 2, "the check and the tunnel both resolved: " + asked.get());
      URI other = URI.create("https://other.example:" + server.getAddress().getPort() + "/");
      var e =
          assertThrows(
              java.io.IOException.class,
              () ->
                  http.send(
                      HttpRequest.newBuilder(other).build(), HttpResponse.BodyHandlers.ofString()));
      assertTrue(String.valueOf(e.getMessage()).contains("502"), e.getMessage());
    } finally {
      server.stop(0);
    }
  }
}
