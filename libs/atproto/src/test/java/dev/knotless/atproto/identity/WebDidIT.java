package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpsServer;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.TestTls;
import dev.knotless.testing.WithPds;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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

  /** {@code "localhost <path>"} to what it answers: a body, or {@code "302 <location>"}. */
  private final Map<String, String> served = new ConcurrentHashMap<>();

  private static final String DOC = "localhost /.well-known/did.json";

  @Test
  void aDidWebDocumentServedOverHttpsResolvesToItsPdsAndAForgedOneOrARedirectDoesNot(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account account = pds.createAccount("webdid");
    TestTls keys = TestTls.forNames(tmp, List.of("localhost", "ip:127.0.0.1"));
    HttpsServer server = keys.server(TestTls.answering(served, new CopyOnWriteArrayList<>()));
    try {
      String did = "did:web:localhost%3A" + server.getAddress().getPort();
      ObjectNode doc = pds.didDocument(account.did());
      doc.put("id", did);
      served.put(DOC, doc.toString());
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
      served.put(DOC, doc.toString());
      IdentityException forged = assertThrows(IdentityException.class, () -> resolver.resolve(did));
      assertTrue(forged.getMessage().contains("is for another DID"), forged.getMessage());

      served.put(DOC, "302 https://example.com/.well-known/did.json");
      IdentityException moved = assertThrows(IdentityException.class, () -> resolver.resolve(did));
      assertTrue(moved.getMessage().contains("answered 302"), moved.getMessage());
    } finally {
      server.stop(0);
    }
  }

  /** A client trusting the test's certificate, otherwise as identity resolution makes one. */
  private static HttpClient trusting(TestTls tls) throws Exception {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER)
        .sslContext(tls.trusting())
        .build();
  }
}
