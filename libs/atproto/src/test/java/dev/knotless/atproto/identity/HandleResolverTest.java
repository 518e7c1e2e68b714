package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HandleResolverTest {
  private static final String DID = "did:plc:jgy5nm3rsixvgm4hfqgjmjee";

  @Test
  void anAtprotoTxtRecordNamesTheDid() throws Exception {
    HandleResolver resolver =
        dns(Map.of("_atproto.alice.example.com", List.of("v=spf1 -all", "did=" + DID)));

    assertEquals(DID, resolver.resolve("Alice.Example.com"));
  }

  @Test
  void twoTxtRecordsNamingDifferentDidsAreRefused() {
    HandleResolver resolver =
        dns(
            Map.of(
                "_atproto.alice.example.com",
                List.of("did=" + DID, "did=did:plc:aaaaaaaaaaaaaaaaaaaaaaaa")));

    IdentityException e =
        assertThrows(IdentityException.class, () -> resolver.resolve("alice.example.com"));
    assertTrue(e.getMessage().contains("several different _atproto DNS records"), e.getMessage());
  }

  @Test
  void aTxtRecordWithAMalformedDidIsRefused() {
    HandleResolver resolver = dns(Map.of("_atproto.alice.example.com", List.of("did=did:plc:x")));

    IdentityException e =
        assertThrows(IdentityException.class, () -> resolver.resolve("alice.example.com"));
    assertTrue(
        e.getMessage().startsWith("handle alice.example.com names a malformed DID in its _atproto"),
        e.getMessage());
  }

  @Test
  void aMalformedHandleIsRefusedBeforeAnyLookup() {
    HandleResolver resolver =
        new HandleResolver(
            null,
            HttpClient.newHttpClient(),
            name -> {
              throw new AssertionError("looked up " + name);
            });

    assertThrows(IllegalArgumentException.class, () -> resolver.resolve("not a handle"));
  }

  @Test
  void theOverrideComesFromTheEnvironment() {
    assertEquals(
        URI.create("https://plc.directory"),
        DidResolver.fromEnvironment(Map.of(), HttpClient.newHttpClient()).plc());
    assertEquals(
        URI.create("http://127.0.0.1:2582"),
        DidResolver.fromEnvironment(
                Map.of("KNOTLESS_PLC_URL", "http://127.0.0.1:2582"), HttpClient.newHttpClient())
            .plc());
  }

  private static HandleResolver dns(Map<String, List<String>> records) {
    return new HandleResolver(
        null, HttpClient.newHttpClient(), name -> records.getOrDefault(name, List.of()));
  }
}
