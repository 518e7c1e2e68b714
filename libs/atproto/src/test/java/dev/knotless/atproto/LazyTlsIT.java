package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import dev.knotless.testing.TestTls;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A client on {@link LazyTls} sets up TLS only for https, and then checks as the JDK does. */
class LazyTlsIT {
  private static final Map<String, String> SERVED =
      Map.of("localhost /hello", "hi", "127.0.0.1 /hello", "hi");

  @Test
  void plainHttpNeverSetsUpTlsAndHttpsChecksTheServerAsTheDefaultContextWould(@TempDir Path tmp)
      throws Exception {
    SSLContext lazy = LazyTls.newContext();
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(lazy)
            .sslParameters(LazyTls.parameters())
            .build();
    assertFalse(LazyTls.started(lazy), "building the client set up TLS");

    HttpServer plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    plain.createContext("/", TestTls.answering(SERVED, new CopyOnWriteArrayList<>()));
    plain.start();
    TestTls keys = TestTls.forNames(tmp, List.of("localhost", "ip:127.0.0.1"));
    HttpsServer tls = keys.server(TestTls.answering(SERVED, new CopyOnWriteArrayList<>()));
    try {
      HttpResponse<String> reply =
          client.send(
              HttpRequest.newBuilder(URI.create(url("http", plain.getAddress()))).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals("hi", reply.body());
      assertFalse(LazyTls.started(lazy), "a plain http request set up TLS");

      // The test's own certificate is in no trust store the JDK reads by default: refused, as the
      // default context refuses it.
      HttpRequest overTls =
          HttpRequest.newBuilder(URI.create(url("https", tls.getAddress()))).build();
      assertThrows(
          SSLHandshakeException.class,
          () -> client.send(overTls, HttpResponse.BodyHandlers.ofString()));
      assertTrue(LazyTls.started(lazy));
      assertThrows(
          SSLHandshakeException.class,
          () ->
              HttpClient.newBuilder()
                  .sslContext(SSLContext.getDefault())
                  .build()
                  .send(overTls, HttpResponse.BodyHandlers.ofString()));

      // A process told to trust it (the JDK's own javax.net.ssl settings) gets through.
      Process child =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Djavax.net.ssl.trustStore=" + keys.file(),
                  "-Djavax.net.ssl.trustStoreType=PKCS12",
                  "-Djavax.net.ssl.trustStorePassword=" + TestTls.PASSWORD,
                  "-cp",
                  System.getProperty("java.class.path"),
                  Get.class.getName(),
                  url("https", tls.getAddress()))
              .redirectErrorStream(true)
              .start();
      String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, child.waitFor(), out);
      assertEquals("hi", out.strip());
    } finally {
      plain.stop(0);
      tls.stop(0);
    }
  }

  /** {@code Get <url>}: prints the body, through a client on the shared {@link LazyTls}. */
  public static final class Get {
    public static void main(String[] args) throws Exception {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .sslContext(LazyTls.context())
              .sslParameters(LazyTls.parameters())
              .build();
      System.out.println(
          client
              .send(
                  HttpRequest.newBuilder(URI.create(args[0])).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body());
    }
  }

  private static String url(String scheme, InetSocketAddress at) {
    return scheme + "://127.0.0.1:" + at.getPort() + "/hello";
  }
}
