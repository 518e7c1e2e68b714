package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class DidDocumentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DID = "did:plc:jgy5nm3rsixvgm4hfqgjmjee";
  private static final String DID_KEY = "did:key:zQ3shdV6BbcNN1We47CiDwzBWSfyobfn4tgrp4BTvsXkHnwte";

  /** As the PLC directory of the reference setup served it (legacy type, uncompressed key). */
  private static final String PLC_DOC =
      """
      {"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/suites/secp256k1-2019/v1"],
       "id":"did:plc:jgy5nm3rsixvgm4hfqgjmjee","alsoKnownAs":["at://alice.test"],
       "verificationMethod":[{"id":"#atproto","type":"EcdsaSecp256k1VerificationKey2019",
         "controller":"did:plc:jgy5nm3rsixvgm4hfqgjmjee",
         "publicKeyMultibase":"zSFPUCgUCiDa9ApCf5GxheehyhoCVEL34xcDbNJoje8tquPhwXjQV28W2BnUK2BeuSLuEDrSHzrSvfB6Tasy641eM"}],
       "service":[{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"http://localhost:41107"}]}
      """;

  /** The same account as plc.directory writes documents today (Multikey, full ids). */
  private static final String MULTIKEY_DOC =
      """
      {"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/multikey/v1"],
       "id":"did:plc:jgy5nm3rsixvgm4hfqgjmjee","alsoKnownAs":["at://Alice.test","at://old.example.com"],
       "verificationMethod":[{"id":"did:plc:jgy5nm3rsixvgm4hfqgjmjee#atproto","type":"Multikey",
         "controller":"did:plc:jgy5nm3rsixvgm4hfqgjmjee",
         "publicKeyMultibase":"zQ3shdV6BbcNN1We47CiDwzBWSfyobfn4tgrp4BTvsXkHnwte"}],
       "service":[{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://pds.example.com"}]}
      """;

  @Test
  void theLegacyUncompressedKeyBecomesTheSameDidKeyThePlcReports() throws Exception {
    DidDocument doc = DidDocument.parse(DID, JSON.readTree(PLC_DOC));

    assertEquals(DID_KEY, doc.signingKey());
    assertEquals(List.of("alice.test"), doc.handles());
    assertEquals(URI.create("http://localhost:41107"), doc.pds());
  }

  @Test
  void aMultikeyDocumentGivesTheSameKeyAndLowercasedHandles() throws Exception {
    DidDocument doc = DidDocument.parse(DID, JSON.readTree(MULTIKEY_DOC));

    assertEquals(DID_KEY, doc.signingKey());
    assertEquals(List.of("alice.test", "old.example.com"), doc.handles());
    assertEquals("alice.test", doc.primaryHandle().orElseThrow());
    assertEquals(URI.create("https://pds.example.com"), doc.pds());
  }

  @Test
  void aDocumentForAnotherDidIsRefused() {
    assertRefused(d -> d.put("id", "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa"), "is for another DID");
  }

  @Test
  void aDocumentWithoutAPdsIsRefused() {
    assertRefused(d -> d.remove("service"), "names no PDS");
  }

  @Test
  void aPdsThatIsNoWebAddressIsRefused() {
    assertRefused(
        d -> ((ObjectNode) d.get("service").get(0)).put("serviceEndpoint", "ftp://x.example"),
        "no http(s) address");
    assertRefused(
        d -> ((ObjectNode) d.get("service").get(0)).put("serviceEndpoint", "not a url"),
        "names a PDS that is no");
  }

  @Test
  void aDocumentWithoutASigningKeyIsRefused() {
    assertRefused(d -> d.putArray("verificationMethod"), "has no #atproto verification method");
  }

  @Test
  void aKeyOfUnknownTypeOrEncodingIsRefused() {
    assertRefused(
        d -> ((ObjectNode) d.get("verificationMethod").get(0)).put("type", "JsonWebKey2020"),
        "unknown type \"JsonWebKey2020\"");
    assertRefused(
        d -> ((ObjectNode) d.get("verificationMethod").get(0)).put("publicKeyMultibase", "uAAAA"),
        "not base58btc multibase");
    assertRefused(
        d -> ((ObjectNode) d.get("verificationMethod").get(0)).put("publicKeyMultibase", "z0OIl"),
        "does not decode");
    assertRefused(
        d -> ((ObjectNode) d.get("verificationMethod").get(0)).put("publicKeyMultibase", "z2g"),
        "a public key has 33 (compressed) or 65");
  }

  @Test
  void somethingThatIsNoObjectIsRefused() {
    IdentityException e =
        assertThrows(IdentityException.class, () -> DidDocument.parse(DID, JSON.readTree("[1]")));
    assertEquals("the DID document of " + DID + " is not a JSON object", e.getMessage());
  }

  @Test
  void claimsThatAreNoHandlesAreLeftOut() throws Exception {
    ObjectNode doc = (ObjectNode) JSON.readTree(PLC_DOC);
    ArrayNode aka = doc.putArray("alsoKnownAs");
    aka.add("https://alice.example").add("at://not a handle").add("at://bob.test");

    assertEquals(List.of("bob.test"), DidDocument.parse(DID, doc).handles());
  }

  private static void assertRefused(Consumer<ObjectNode> breakIt, String expected) {
    ObjectNode doc;
    try {
      doc = (ObjectNode) JSON.readTree(PLC_DOC);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    breakIt.accept(doc);
    JsonNode broken = doc;
    IdentityException e =
        assertThrows(IdentityException.class, () -> DidDocument.parse(DID, broken));
    assertTrue(e.getMessage().startsWith("the DID document of " + DID), e.getMessage());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
