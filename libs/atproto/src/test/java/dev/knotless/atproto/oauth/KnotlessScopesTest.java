package dev.knotless.atproto.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class KnotlessScopesTest {

  @Test
  void knotlessAsksForItsOwnCollectionsByNameAndNothingBroad() {
    List<String> all = KnotlessScopes.all();
    assertEquals("atproto", all.get(0));
    assertTrue(all.contains("repo:dev.knotless.ref"));
    assertTrue(all.contains("blob:*/*"));
    assertTrue(all.contains("rpc:dev.knotless.putRunOutput?aud=*"));
    // A private repository is made, read and changed with tokens for the space host's methods.
    for (String m :
        List.of("getCredential", "createSpace", "deleteSpace", "listSpaces", "addMember")) {
      assertTrue(all.contains("rpc:com.atproto.space." + m + "?aud=*"), m);
    }
    assertTrue(all.contains("rpc:com.atproto.space.removeMember?aud=*"));
    assertTrue(all.contains("rpc:dev.knotless.awaitSpaceWrites?aud=*"));
    for (String s : all) {
      assertFalse(s.startsWith("transition:"), s);
      assertFalse(s.equals("repo:*") || s.startsWith("rpc:*"), s);
      if (s.startsWith("repo:")) {
        assertTrue(s.startsWith("repo:dev.knotless."), s);
      }
    }
    assertEquals(String.join(" ", all), KnotlessScopes.requested());
  }

  @Test
  void aSessionLackingOnlyServiceMethodsStillWritesAndOneLackingACollectionDoesNot() {
    String allButRpc =
        String.join(" ", KnotlessScopes.all().stream().filter(s -> !s.startsWith("rpc:")).toList());
    assertFalse(KnotlessScopes.missing(allButRpc).isEmpty());
    assertEquals(List.of(), KnotlessScopes.missingForWrites(allButRpc));
    assertEquals(List.of(), KnotlessScopes.missing(KnotlessScopes.requested()));
    String noPacks = KnotlessScopes.requested().replace("repo:dev.knotless.pack ", "");
    assertEquals(List.of("repo:dev.knotless.pack"), KnotlessScopes.missingForWrites(noPacks));
  }
}
