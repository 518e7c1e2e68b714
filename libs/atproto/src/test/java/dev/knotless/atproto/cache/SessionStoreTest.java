package dev.knotless.atproto.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionStoreTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void sessionsAreReadableByTheirOwnerAlone() throws Exception {
    Path config = dir.resolve("config/knotless");
    SessionStore store = new SessionStore(config);

    store.write("did:plc:abc", session("token-1"));
    store.write("did:plc:def", session("token-2"));

    assertEquals(
        "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(config)));
    assertEquals("token-1", store.read("did:plc:abc").orElseThrow().path("accessJwt").asText());
  }

  @Test
  void sessionsLiveInTheConfigDirectoryNotTheCache() {
    SessionStore store =
        SessionStore.fromEnvironment(
            Map.of("XDG_CONFIG_HOME", "/x/config", "XDG_CACHE_HOME", "/x/cache"));

    assertEquals(Path.of("/x/config/knotless/sessions.json"), store.file());
  }

  @Test
  void aLogoutForgetsOnlyThatAccount() {
    SessionStore store = new SessionStore(dir);
    store.write("did:plc:abc", session("token-1"));
    store.write("did:plc:def", session("token-2"));

    store.remove("did:plc:abc");

    assertTrue(store.read("did:plc:abc").isEmpty());
    assertEquals("token-2", store.read("did:plc:def").orElseThrow().path("accessJwt").asText());
  }

  @Test
  void theLastLoginNamesTheAccountEvenWithOtherSessionsSavedAndALogoutForgetsIt() {
    SessionStore store = new SessionStore(dir);
    assertTrue(store.loggedIn().isEmpty());
    // A file holding one account's session, from before logins were named, names that account.
    store.write("did:plc:owner", session("token-1"));
    assertEquals("did:plc:owner", store.loggedIn().orElseThrow());
    // Two sessions and no login named: nobody is assumed.
    store.write("did:plc:other", session("token-2"));
    assertTrue(store.loggedIn().isEmpty());

    store.writeLogin("did:plc:collab", session("token-3"));
    // A session another command saves later (the owner's, from the environment) changes nothing.
    store.write("did:plc:owner", session("token-4"));
    assertEquals("did:plc:collab", store.loggedIn().orElseThrow());
    assertEquals("token-3", store.read("did:plc:collab").orElseThrow().path("accessJwt").asText());
    assertTrue(store.read("login").isEmpty(), "the login's name is no session");

    store.remove("did:plc:collab");
    assertTrue(store.loggedIn().isEmpty());
  }

  private static ObjectNode session(String token) {
    return JSON.createObjectNode().put("accessJwt", token).put("refreshJwt", "r-" + token);
  }
}
