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

  private static ObjectNode session(String token) {
    return JSON.createObjectNode().put("accessJwt", token).put("refreshJwt", "r-" + token);
  }
}
