package dev.knotless.runner.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonStateStoreTest extends StateStoreContract {

  @TempDir Path dir;
  private int stores;

  @Override
  protected StateStore newStore() {
    return new JsonStateStore(dir.resolve("state-" + stores++ + ".json"));
  }

  @Override
  protected StateStore reopen(StateStore store) {
    return new JsonStateStore(dir.resolve("state-" + (stores - 1) + ".json"));
  }

  @Test
  void aCorruptFileCountsAsEmpty() throws IOException {
    Path file = dir.resolve("state.json");
    Files.writeString(
        file, "{\"version\": 1, \"repos\": {\"did:plc:a/k\": {\"refs/heads/main\": \"x\"}}");
    assertEquals(Optional.empty(), new JsonStateStore(file).load("did:plc:a/k"));
    Files.writeString(
        file, "{\"version\": 1, \"repos\": {\"did:plc:a/k\": {\"refs/heads/main\": \"x\"}}}");
    assertEquals(Optional.empty(), new JsonStateStore(file).load("did:plc:a/k"));
    Files.writeString(file, "[]");
    assertEquals(Optional.empty(), new JsonStateStore(file).load("did:plc:a/k"));
  }

  @Test
  void aFileThatCannotBeReadCountsAsEmptyAndAFailedWriteChangesNothing() throws IOException {
    Path notADirectory = dir.resolve("plain");
    Files.writeString(notADirectory, "");
    JsonStateStore store = new JsonStateStore(notADirectory.resolve("state.json"));
    assertEquals(Optional.empty(), store.load(REPO));
    StateStoreException e =
        assertThrows(StateStoreException.class, () -> store.update(REPO, s -> everyField()));
    assertTrue(e.getMessage().startsWith("state file " + notADirectory.resolve("state.json")));
    assertEquals(Optional.empty(), store.load(REPO), "the failed update was not applied");
  }

  @Test
  void theFileIsReplacedWholeAndNoTemporaryFileIsLeft() throws IOException {
    Path file = dir.resolve("state.json");
    JsonStateStore store = new JsonStateStore(file);
    for (int i = 0; i < 5; i++) {
      long gen = i;
      store.update(REPO, s -> s.withRef("refs/heads/main", gen));
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(java.util.List.of(file), files.toList());
    }
    String json = Files.readString(file);
    assertTrue(json.contains("\"repos\""), json);
    assertTrue(json.contains("\"used_private\""), json);
  }

  @Test
  void theFileIsLaidOutFieldByFieldEachKeyedByRepository() throws IOException {
    Path file = dir.resolve("state.json");
    new JsonStateStore(file).update(REPO, s -> everyField());
    var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(file.toFile());
    assertEquals(12, root.path("repos").path(REPO).path("refs/heads/main").asInt());
    assertEquals("3krerun", root.path("reruns").path(REPO).asText());
    assertEquals(60_000, root.path("used").path(REPO).path("2026-11-28").asLong());
    assertEquals(5_000, root.path("used_private").path(REPO).path("2026-11-29").asLong());
    assertEquals(
        "all",
        root.path("wanted")
            .path(REPO)
            .path("refs/heads/main")
            .path(0)
            .path("variables")
            .path("SCENARIO")
            .asText());
    assertEquals(
        "screenshots",
        root.path("asked_only")
            .path(REPO)
            .path("at://did:plc:bob/dev.knotless.pull/3k2")
            .path(0)
            .asText());
  }
}
