package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.cache.SessionStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunnerSessionsTest {

  @Test
  void loginWithNoAccountNamedIsAUsageError(@TempDir Path tmp) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        RunnerSessions.command(
            RunnerSessions.LOGIN,
            List.of(),
            Map.of("KNOTLESS_CONFIG_DIR", tmp.toString()),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, exit);
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("knotless-run login <"), err.toString());
  }

  @Test
  void aMountedSessionSeedsAnEmptyConfigDirectoryOwnerOnlyAndNeverOverwritesOne(@TempDir Path tmp)
      throws Exception {
    Path mounted = tmp.resolve("secret.json");
    ObjectNode session = Json.object();
    session.put("kind", "oauth");
    session.put("did", "did:plc:runner");
    session.put("refreshToken", "from-the-secret");
    Files.write(mounted, Json.write(session));
    SessionStore store = new SessionStore(tmp.resolve("config"));
    Map<String, String> env = Map.of(RunnerSessions.SEED, mounted.toString());

    RunnerSessions.seed(env, store);
    assertEquals(
        "from-the-secret",
        store.read("did:plc:runner").orElseThrow().path("refreshToken").asText());
    assertEquals("did:plc:runner", store.loggedIn().orElseThrow());
    assertEquals(
        "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())));

    // The runner refreshed since: a restart keeps its session, not the Secret's spent one.
    ObjectNode refreshed = session.deepCopy();
    refreshed.put("refreshToken", "refreshed");
    store.write("did:plc:runner", refreshed);
    RunnerSessions.seed(env, store);
    assertEquals(
        "refreshed", store.read("did:plc:runner").orElseThrow().path("refreshToken").asText());
  }

  @Test
  void aMountedFileThatIsNoOAuthSessionIsRefusedNamingIt(@TempDir Path tmp) throws Exception {
    Path mounted = tmp.resolve("secret.json");
    Files.writeString(mounted, "{\"did\":\"did:plc:x\",\"accessJwt\":\"a\"}");
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                RunnerSessions.seed(
                    Map.of(RunnerSessions.SEED, mounted.toString()),
                    new SessionStore(tmp.resolve("config"))));
    assertTrue(e.getMessage().contains(mounted.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("no OAuth session"), e.getMessage());
  }
}
