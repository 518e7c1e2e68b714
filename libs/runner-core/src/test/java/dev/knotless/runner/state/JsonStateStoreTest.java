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
  void theMergeQueueAndItsEjectionsAreKeptAcrossARestart() {
    String a = "0".repeat(40);
    String b = "1".repeat(40);
    String c = "2".repeat(40);
    var pull1 =
        new dev.knotless.runner.queue.QueueState.Pull("at://did:plc:a/dev.knotless.pull/1", a);
    var pull2 =
        new dev.knotless.runner.queue.QueueState.Pull("at://did:plc:a/dev.knotless.pull/2", b);
    var q =
        new dev.knotless.runner.queue.QueueState(
            "refs/heads/main",
            java.util.List.of(
                new dev.knotless.runner.queue.QueueState.Batch(
                    4,
                    java.util.List.of(pull1),
                    3,
                    c,
                    b,
                    dev.knotless.runner.queue.QueueState.Status.PASSED),
                new dev.knotless.runner.queue.QueueState.Batch(
                    5,
                    java.util.List.of(pull2),
                    3,
                    b,
                    null,
                    dev.knotless.runner.queue.QueueState.Status.BUILDING)),
            java.util.List.of(pull2),
            3,
            5);
    StateStore store = newStore();
    store.update(REPO, s -> s.withQueue(q).withEjected(pull2.uri(), b));
    RepoState again = reopen(store).load(REPO).orElseThrow();
    assertEquals(q, again.queues().get("refs/heads/main"));
    assertEquals(java.util.Map.of(pull2.uri(), b), again.ejected());
    // An idle queue keeps its last batch id, so batch ids only grow; a queue never used goes.
    var idle =
        new dev.knotless.runner.queue.QueueState(
            "refs/heads/main", java.util.List.of(), java.util.List.of(), 0, 5);
    assertEquals(idle, store.update(REPO, s -> s.withQueue(idle)).queues().get("refs/heads/main"));
    assertTrue(
        store
            .update(
                REPO, s -> s.withQueue(dev.knotless.runner.queue.QueueState.empty("refs/heads/x")))
            .queues()
            .keySet()
            .equals(java.util.Set.of("refs/heads/main")));
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
  void anUpdateThatChangesNothingLeavesTheFileAsItWas() throws IOException {
    Path file = dir.resolve("state.json");
    JsonStateStore store = new JsonStateStore(file);
    store.update(REPO, s -> s.withRef("refs/heads/main", 3));
    Object written = Files.getAttribute(file, "unix:ino");

    store.update(REPO, s -> s.withRef("refs/heads/main", 3));
    assertEquals(written, Files.getAttribute(file, "unix:ino"), "not written again");
    store.update(REPO, s -> s.withRef("refs/heads/main", 4));
    assertTrue(!written.equals(Files.getAttribute(file, "unix:ino")), "a change is written");
    assertEquals(4L, reopenAt(file).load(REPO).orElseThrow().refs().get("refs/heads/main"));

    // A repository with no state yet gets it, even an empty one: it is known from then on.
    store.update("did:plc:other/3kother", s -> s);
    assertTrue(reopenAt(file).load("did:plc:other/3kother").isPresent());
  }

  private static StateStore reopenAt(Path file) {
    return new JsonStateStore(file);
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
