package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.XrpcObserver;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SSRF: a hostile PLC directory serves DID documents whose PDS is a cloud metadata address, a
 * private address or plain http; the runner's identity resolution refuses each, naming the address,
 * and the honest account on the same directory still resolves. With loopback not allowed, the test
 * PDS itself is refused before any request reaches it.
 */
@WithPds
class PrivateAddressesIT {
  private static final String KEY = "zQ3shdV6BbcNN1We47CiDwzBWSfyobfn4tgrp4BTvsXkHnwte";

  private HttpServer plc;
  private final Map<String, String> pdsOf = new ConcurrentHashMap<>();
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    plc = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    plc.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          String did = exchange.getRequestURI().getPath().substring(1);
          String pds = pdsOf.get(did);
          byte[] body = pds == null ? new byte[0] : document(did, pds);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(
              pds == null ? 404 : 200, body.length == 0 ? -1 : body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    plc.start();
  }

  @AfterEach
  void stop() {
    plc.stop(0);
  }

  private URI plcUrl() {
    return URI.create("http://127.0.0.1:" + plc.getAddress().getPort());
  }

  private static byte[] document(String did, String pds) {
    return ("{\"id\":\""
            + did
            + "\",\"alsoKnownAs\":[],\"verificationMethod\":[{\"id\":\""
            + did
            + "#atproto\",\"type\":\"Multikey\",\"controller\":\""
            + did
            + "\",\"publicKeyMultibase\":\""
            + KEY
            + "\"}],\"service\":[{\"id\":\"#atproto_pds\",\"type\":\"AtprotoPersonalDataServer\","
            + "\"serviceEndpoint\":\""
            + pds
            + "\"}]}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private IdentityResolver resolver(ServiceAddresses addresses) {
    var http = Fetch.defaultClient();
    return new IdentityResolver(
        new HandleResolver(plcUrl(), http, name -> java.util.List.of(), addresses),
        new DidResolver(plcUrl(), http, addresses),
        null);
  }

  @Test
  void aDidDocumentNamingAMetadataPrivateOrPlainHttpPdsIsRefusedNamingTheAddress()
      throws Exception {
    String metadata = "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa";
    String private10 = "did:plc:bbbbbbbbbbbbbbbbbbbbbbbb";
    String privateV6 = "did:plc:cccccccccccccccccccccccc";
    String plainHttp = "did:plc:dddddddddddddddddddddddd";
    String honest = "did:plc:eeeeeeeeeeeeeeeeeeeeeeee";
    pdsOf.put(metadata, "https://169.254.169.254");
    pdsOf.put(private10, "http://10.0.0.1:2583");
    pdsOf.put(privateV6, "https://[fd00:ec2::254]");
    pdsOf.put(plainHttp, "http://93.184.215.14");
    pdsOf.put(honest, "https://93.184.215.14");
    // As the harness runs: loopback allowed (the PLC here is on 127.0.0.1), nothing else local.
    IdentityResolver resolver = resolver(ServiceAddresses.allowingLoopback());

    assertRefused(resolver, metadata, "169.254.169.254", "link-local");
    assertRefused(resolver, private10, "10.0.0.1", "a private address");
    assertRefused(resolver, privateV6, "fd00:ec2:0:0:0:0:0:254", "unique-local");
    assertRefused(resolver, plainHttp, "http://93.184.215.14", "plain http");
    assertEquals(URI.create("https://93.184.215.14"), resolver.resolve(honest).pds());
  }

  private static void assertRefused(
      IdentityResolver resolver, String did, String address, String why) {
    IdentityException e = assertThrows(IdentityException.class, () -> resolver.resolve(did));
    String m = e.getMessage();
    assertTrue(m.contains(did) && m.contains(address) && m.contains(why), m);
  }

  @Test
  void withoutTheLoopbackAllowanceTheTestPdsAndItsDirectoryAreRefusedBeforeAnyRequest(
      PdsInstance pds) throws Exception {
    Account account = pds.createAccount("strict");
    AtomicInteger calls = new AtomicInteger();
    XrpcObserver counting = (method, status, nanos) -> calls.incrementAndGet();
    XrpcClient client =
        XrpcClient.create(pds.pdsUrl(), Fetch.defaultClient(), counting, ServiceAddresses.strict());

    XrpcException e = assertThrows(XrpcException.class, client::describeServer);
    assertTrue(
        e.getMessage().contains("127.0.0.1") && e.getMessage().contains("loopback"),
        e.getMessage());
    assertEquals(1, calls.get(), "one call, failed without a status");
    assertEquals(0, e.status());

    IdentityException refused =
        assertThrows(
            IdentityException.class,
            () -> resolver(ServiceAddresses.strict()).resolve(account.did()));
    assertTrue(refused.getMessage().contains("127.0.0.1"), refused.getMessage());
    assertEquals(0, requests.get(), "the directory on 127.0.0.1 was asked");

    // The same client with the allowance reaches the test PDS: only the setting differs.
    XrpcClient.create(
            pds.pdsUrl(), Fetch.defaultClient(), counting, ServiceAddresses.allowingLoopback())
        .describeServer();
  }

  @Test
  void aDidWebOnALoopbackOrMetadataHostIsRefusedWithoutAConnection() {
    DidResolver strict =
        new DidResolver(plcUrl(), Fetch.defaultClient(), ServiceAddresses.strict());
    IdentityException e =
        assertThrows(IdentityException.class, () -> strict.resolve("did:web:169.254.169.254"));
    assertTrue(
        e.getMessage().contains("169.254.169.254") && e.getMessage().contains("link-local"),
        e.getMessage());
    IdentityException local =
        assertThrows(IdentityException.class, () -> strict.resolve("did:web:localhost"));
    assertTrue(local.getMessage().contains("loopback"), local.getMessage());
  }
}
