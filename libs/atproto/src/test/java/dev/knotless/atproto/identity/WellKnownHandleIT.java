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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handles resolved through {@code https://<handle>/.well-known/atproto-did} on an HTTPS server the
 * test starts, with a certificate made for the handles' names. A handle must be a real domain name
 * on port 443, so the test routes {@code alice.example.test} and the others to its server ({@link
 * ServiceAddresses#routing}); everything else is the production path: the pinning tunnel, the
 * address check, TLS checked against the handle's name. A handle with no {@code _atproto} TXT
 * record falls back to the well-known URL; one with a record never asks it; an answer that is no
 * DID, too large or a redirect is refused naming the URL; and a DID document must name the handle
 * back before the handle counts as the account's.
 */
@WithPds
class WellKnownHandleIT {
  private static final List<String> NAMES =
      List.of("alice.example.test", "bob.example.test", "carol.example.test");
  private static final String ALICE_DID = "did:web:alice.example.test";

  /** "host path" to what it answers: a body, or {@code "302 <location>"}. */
  private final Map<String, String> served = new ConcurrentHashMap<>();

  /** "host path" of every request the server got, in order. */
  private final List<String> requests = new CopyOnWriteArrayList<>();

  /** The TXT records the fake DNS holds, and the names it was asked. */
  private final Map<String, List<String>> txt = new ConcurrentHashMap<>();

  private final List<String> txtAsked = new CopyOnWriteArrayList<>();

  private TestTls keys;
  private HttpsServer server;
  private ServiceAddresses addresses;
  private HttpClient http;
  private HandleResolver handles;

  @BeforeEach
  void start(@TempDir Path tmp) throws Exception {
    keys = TestTls.forNames(tmp, NAMES);
    server = keys.server(TestTls.answering(served, requests));
    addresses =
        ServiceAddresses.allowingLoopback()
            .routing(
                Map.of(
                    NAMES.get(0), server.getAddress(),
                    NAMES.get(1), server.getAddress(),
                    NAMES.get(2), server.getAddress()));
    http = trusting(addresses, keys);
    handles =
        new HandleResolver(
            null,
            http,
            name -> {
              txtAsked.add(name);
              return txt.getOrDefault(name, List.of());
            },
            addresses);
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aHandleWithoutATxtRecordResolvesThroughItsWellKnownUrlAndBadAnswersAreRefused()
      throws Exception {
    served.put("alice.example.test /.well-known/atproto-did", ALICE_DID + "\n");

    assertEquals(ALICE_DID, handles.resolve("Alice.Example.test"));
    assertEquals(List.of("_atproto.alice.example.test"), txtAsked, "DNS is asked first");
    assertEquals(List.of("alice.example.test /.well-known/atproto-did"), requests);

    // A TXT record decides on its own: the well-known URL is not asked.
    txt.put("_atproto.carol.example.test", List.of("did=did:plc:jgy5nm3rsixvgm4hfqgjmjee"));
    served.put("carol.example.test /.well-known/atproto-did", ALICE_DID);
    assertEquals("did:plc:jgy5nm3rsixvgm4hfqgjmjee", handles.resolve("carol.example.test"));
    assertEquals(1, requests.size(), requests.toString());

    String bob = "bob.example.test /.well-known/atproto-did";
    served.put(bob, "<html>not a did</html>");
    assertRefused(
        "handle bob.example.test names a malformed DID in "
            + "https://bob.example.test/.well-known/atproto-did");

    served.put(bob, "did:plc:" + "a".repeat(2 << 20));
    assertRefused(
        "https://bob.example.test/.well-known/atproto-did was asked to resolve the handle"
            + " bob.example.test: the reply was over 1048576 bytes");

    served.put(bob, "302 https://alice.example.test/.well-known/atproto-did");
    int before = requests.size();
    assertRefused(
        "answered 302 (a redirect to https://alice.example.test/.well-known/atproto-did),"
            + " which is not followed");
    assertEquals(List.of(bob), requests.subList(before, requests.size()), "redirect not followed");

    served.remove(bob);
    assertRefused(
        "handle bob.example.test does not resolve: no _atproto DNS record, and"
            + " https://bob.example.test/.well-known/atproto-did answered 404");

    // The route changes where the name leads, not what is allowed: loopback stays refused.
    ServiceAddresses strict =
        ServiceAddresses.strict().routing(Map.of("alice.example.test", server.getAddress()));
    HandleResolver refusing =
        new HandleResolver(null, trusting(strict, keys), name -> List.of(), strict);
    IdentityException e =
        assertThrows(IdentityException.class, () -> refusing.resolve("alice.example.test"));
    assertTrue(e.getMessage().contains("a loopback address"), e.getMessage());
  }

  @Test
  void aHandleCountsAsTheAccountsOnlyWhenItsDidDocumentNamesItBack(PdsInstance pds)
      throws Exception {
    Account account = pds.createAccount("wellknown");
    ObjectNode doc = pds.didDocument(account.did());
    doc.put("id", ALICE_DID);
    doc.putArray("alsoKnownAs").add("at://alice.example.test");
    served.put("alice.example.test /.well-known/did.json", doc.toString());
    served.put("alice.example.test /.well-known/atproto-did", ALICE_DID);
    IdentityResolver identities =
        new IdentityResolver(handles, new DidResolver(pds.plcUrl(), http, addresses), null);

    Identity alice = identities.resolve("alice.example.test");
    assertEquals(ALICE_DID, alice.did());
    assertEquals("alice.example.test", alice.handle());
    assertEquals(pds.pdsUrl().getPort(), alice.pds().getPort(), "the PDS the document names");
    assertEquals("alice.example.test", identities.resolve(ALICE_DID).handle());

    // bob.example.test claims alice's DID, but her document does not claim bob back.
    served.put("bob.example.test /.well-known/atproto-did", ALICE_DID);
    Identity viaBob = identities.resolve("bob.example.test");
    assertEquals(ALICE_DID, viaBob.did());
    assertNull(viaBob.handle(), "a handle the document does not name is not verified");

    // Her handle now points at another account: the document's claim alone verifies nothing.
    served.put("alice.example.test /.well-known/atproto-did", account.did());
    assertNull(identities.resolve(ALICE_DID).handle());
    assertEquals(account.did(), identities.resolve("alice.example.test").did());
  }

  private void assertRefused(String expected) {
    IdentityException e =
        assertThrows(IdentityException.class, () -> handles.resolve("bob.example.test"));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  /** A client trusting the test's certificate, otherwise as identity resolution makes one. */
  private static HttpClient trusting(ServiceAddresses addresses, TestTls tls) throws Exception {
    return addresses
        .clientBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER)
        .sslContext(tls.trusting())
        .build();
  }
}
