package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code did:web} account resolved through a web server the test starts, over HTTPS with a
 * certificate made for it, as a real did:web host serves its document: the document of a reference
 * PDS account, moved to the did:web, names that PDS and key; a redirect or a document for another
 * DID is refused, naming what was asked.
 */
@WithPds
class WebDidIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Paths to what they answer: a body, or {@code "302 <location>"}. */
  private final Map<String, String> served = new ConcurrentHashMap<>();

  @Test
  void aDidWebDocumentServedOverHttpsResolvesToItsPdsAndAForgedOneOrARedirectDoesNot(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account account = pds.createAccount("webdid");
    KeyStore keys = keyStore(tmp);
    HttpsServer server = server(keys);
    try {
      String did = "did:web:localhost%3A" + server.getAddress().getPort();
      ObjectNode doc = plcDocument(pds, account.did());
      doc.put("id", did);
      served.put("/.well-known/did.json", doc.toString());
      DidResolver resolver =
          new DidResolver(pds.plcUrl(), trusting(keys), ServiceAddresses.allowingLoopback());

      DidDocument resolved = resolver.resolve(did);
      assertEquals(did, resolved.did());
      assertEquals(pds.pdsUrl().getPort(), resolved.pds().getPort());
      DidDocument plc = resolver.resolve(account.did());
      assertEquals(plc.signingKey(), resolved.signingKey());

      // The handle it claims is the did:plc's: the resolver reports it unverified.
      IdentityResolver identities =
          new IdentityResolver(
              HandleResolver.fromEnvironment(pds.environment(), trusting(keys)), resolver, null);
      Identity id = identities.resolve(did);
      assertEquals(did, id.did());
      assertNull(id.handle(), "a handle that resolves to another DID is not verified");

      doc.put("id", account.did());
      served.put("/.well-known/did.json", doc.toString());
      IdentityException forged = assertThrows(IdentityException.class, () -> resolver.resolve(did));
      assertTrue(forged.getMessage().contains("is for another DID"), forged.getMessage());

      served.put("/.well-known/did.json", "302 https://example.com/.well-known/did.json");
      IdentityException moved = assertThrows(IdentityException.class, () -> resolver.resolve(did));
      assertTrue(moved.getMessage().contains("answered 302"), moved.getMessage());
    } finally {
      server.stop(0);
    }
  }

  private static ObjectNode plcDocument(PdsInstance pds, String did) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(pds.plcUrl() + "/" + did)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return (ObjectNode) JSON.readTree(r.body());
  }

  private HttpsServer server(KeyStore keys) throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, "changeit".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext(
        "/",
        exchange -> {
          String answer = served.get(exchange.getRequestURI().getPath());
          if (answer == null) {
            exchange.sendResponseHeaders(404, -1);
          } else if (answer.startsWith("302 ")) {
            exchange.getResponseHeaders().add("Location", answer.substring(4));
            exchange.sendResponseHeaders(302, -1);
          } else {
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    server.start();
    return server;
  }

  /** A client trusting the test's certificate, otherwise as identity resolution makes one. */
  private static HttpClient trusting(KeyStore keys) throws Exception {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(keys);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER)
        .sslContext(tls)
        .build();
  }

  /** A certificate for localhost, made with the JDK's keytool. */
  private static KeyStore keyStore(Path tmp) throws Exception {
    Path file = tmp.resolve("localhost.p12");
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair",
                    "-alias",
                    "localhost",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=localhost",
                    "-ext",
                    "SAN=dns:localhost,ip:127.0.0.1",
                    "-validity",
                    "2",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    file.toString(),
                    "-storepass",
                    "changeit",
                    "-keypass",
                    "changeit"))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      ks.load(in, "changeit".toCharArray());
    }
    return ks;
  }
}
