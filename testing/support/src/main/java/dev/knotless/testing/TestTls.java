package dev.knotless.testing;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * HTTPS for servers a test starts in place of a did:web host or a handle's {@code .well-known}
 * host: a certificate made with the JDK's keytool for the names given, a server on 127.0.0.1 with
 * it, and the TLS context of a client trusting it (and nothing else). The key store's file is kept,
 * so a helper process the test starts can trust the same certificate ({@link #load}).
 */
public final class TestTls {
  /** The key store's password; the certificate is a test's, valid two days. */
  public static final String PASSWORD = "changeit";

  private final Path file;
  private final KeyStore keys;

  private TestTls(Path file, KeyStore keys) {
    this.file = file;
    this.keys = keys;
  }

  /**
   * A certificate for {@code names}: DNS names, or IP addresses written {@code ip:127.0.0.1}; the
   * first is also its common name. Made in {@code dir}.
   */
  public static TestTls forNames(Path dir, List<String> names)
      throws IOException, InterruptedException, GeneralSecurityException {
    Path file = dir.resolve("test-tls.p12");
    List<String> san = names.stream().map(n -> n.startsWith("ip:") ? n : "dns:" + n).toList();
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair",
                    "-alias",
                    "test",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=" + names.get(0).replaceFirst("^ip:", ""),
                    "-ext",
                    "SAN=" + String.join(",", san),
                    "-validity",
                    "2",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    file.toString(),
                    "-storepass",
                    PASSWORD,
                    "-keypass",
                    PASSWORD))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("keytool could not make a test certificate: " + out);
    }
    return load(file);
  }

  /** The certificate in a key store file {@link #forNames} made, as another process reads it. */
  public static TestTls load(Path file) throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      ks.load(in, PASSWORD.toCharArray());
    }
    return new TestTls(file, ks);
  }

  /** The key store's file. */
  public Path file() {
    return file;
  }

  /** A started HTTPS server on 127.0.0.1 (a free port) presenting the certificate. */
  public HttpsServer server(HttpHandler handler) throws IOException, GeneralSecurityException {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, PASSWORD.toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    HttpsServer s =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    s.setHttpsConfigurator(new HttpsConfigurator(tls));
    s.createContext("/", handler);
    s.start();
    return s;
  }

  /**
   * A handler answering from {@code served}, keyed {@code "<host> <path>"} (the Host header without
   * its port): a body with 200, or {@code "302 <location>"} as a redirect; 404 for anything else.
   * Each request's key is added to {@code requests}. A client that stops reading a large body is
   * let go.
   */
  public static HttpHandler answering(
      java.util.Map<String, String> served, java.util.List<String> requests) {
    return exchange -> {
      String host = exchange.getRequestHeaders().getFirst("Host").replaceFirst(":\\d+$", "");
      String key = host + " " + exchange.getRequestURI().getPath();
      requests.add(key);
      String answer = served.get(key);
      if (answer == null) {
        exchange.sendResponseHeaders(404, -1);
      } else if (answer.startsWith("302 ")) {
        exchange.getResponseHeaders().add("Location", answer.substring(4));
        exchange.sendResponseHeaders(302, -1);
      } else {
        byte[] body = answer.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try {
          exchange.getResponseBody().write(body);
        } catch (IOException e) {
          // the client stops reading a reply that is too large
        }
      }
      exchange.close();
    };
  }

  /** A client's TLS context trusting this certificate alone. */
  public SSLContext trusting() throws GeneralSecurityException {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(keys);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    return tls;
  }
}
