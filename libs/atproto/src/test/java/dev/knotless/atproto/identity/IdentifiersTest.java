package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdentifiersTest {
  @Test
  void handlesAreLowercasedAndLoseALeadingAt() {
    assertEquals("alice.example.com", Identifiers.handle("@Alice.Example.COM"));
    assertEquals("alice.test", Identifiers.handle("alice.test"));
    assertEquals("xn--ls8h.example.com", Identifiers.handle("xn--ls8h.example.com"));
  }

  @Test
  void malformedHandlesAreRefusedSayingWhy() {
    assertRefusedHandle("alice", "it needs a domain");
    assertRefusedHandle("alice..test", "each part between dots");
    assertRefusedHandle("-alice.test", "not starting or ending with a hyphen");
    assertRefusedHandle("alice_b.test", "letters, digits or hyphens");
    assertRefusedHandle("alice.123", "must not start with a digit");
    assertRefusedHandle("alice.local", ".local is a reserved top-level domain");
    assertRefusedHandle("a".repeat(250) + ".test", "longer than 253 characters");
    assertRefusedHandle("", "a handle is required");
  }

  @Test
  void didsOfTheMethodsAtprotoUsesPass() {
    assertEquals(
        "did:plc:jgy5nm3rsixvgm4hfqgjmjee", Identifiers.did("did:plc:jgy5nm3rsixvgm4hfqgjmjee"));
    assertEquals("did:web:example.com", Identifiers.did("did:web:example.com"));
    assertEquals(
        "localhost:8080", Identifiers.webHost(Identifiers.did("did:web:localhost%3A8080")));
  }

  @Test
  void malformedOrUnsupportedDidsAreRefusedSayingWhy() {
    assertRefusedDid("did:plc:short", "a did:plc is 24 characters");
    assertRefusedDid("did:plc:JGY5NM3RSIXVGM4HFQGJMJEE", "a did:plc is 24 characters");
    assertRefusedDid(
        "did:key:zQ3shdV6BbcNN1We47CiDwzBWSfyobfn4tgrp4BTvsXkHnwte", "use did:plc or did:web");
    assertRefusedDid("did:web:example.com:user:alice", "only for a bare host name");
    assertRefusedDid("plc:abc", "expected did:<method>:<identifier>");
    assertRefusedDid("did:plc:", "expected did:<method>:<identifier>");
  }

  private static void assertRefusedHandle(String handle, String why) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Identifiers.handle(handle));
    assertTrue(e.getMessage().contains(why), e.getMessage());
  }

  private static void assertRefusedDid(String did, String why) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Identifiers.did(did));
    assertTrue(e.getMessage().contains(why), e.getMessage());
    assertTrue(e.getMessage().contains(did), e.getMessage());
  }
}
