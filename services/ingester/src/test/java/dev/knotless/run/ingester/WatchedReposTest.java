package dev.knotless.run.ingester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.run.ingester.domain.WatchedRepos;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchedReposTest {
  private static final RepoId APP = new RepoId("did:plc:alice", "3kaaaaaaaaaa1");
  private static final RepoId LIB = new RepoId("did:web:example.com", "3kbbbbbbbbbb1");

  @Test
  void entriesNameOwnerKeyAndName() {
    assertEquals(
        List.of(new WatchedRepo(APP, "app"), new WatchedRepo(LIB, "lib")),
        WatchedRepos.parse(
            "knotless.ingester.repos",
            List.of("did:plc:alice/3kaaaaaaaaaa1=app", " did:web:example.com/3kbbbbbbbbbb1=lib ")));
  }

  @Test
  void aLaterEntryForTheSameRepositoryIsARename() {
    assertEquals(
        List.of(new WatchedRepo(APP, "renamed")),
        WatchedRepos.parse(
            "repos",
            List.of("did:plc:alice/3kaaaaaaaaaa1=app", "did:plc:alice/3kaaaaaaaaaa1=renamed")));
  }

  @Test
  void aFileSkipsBlankLinesAndComments() {
    assertEquals(
        List.of(new WatchedRepo(APP, "app")),
        WatchedRepos.parseLines(
            "/etc/watch", List.of("# watched", "", "did:plc:alice/3kaaaaaaaaaa1=app", "   ")));
  }

  @Test
  void anEntryWithoutANameIsRefusedNamingWhereItIs() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                WatchedRepos.parseLines("/etc/watch", List.of("#", "did:plc:alice/3kaaaaaaaaaa1")));
    assertTrue(e.getMessage().contains("/etc/watch line 2"), e.getMessage());
    assertTrue(e.getMessage().contains("<owner did>/<repo key>=<name>"), e.getMessage());
  }

  @Test
  void anOwnerThatIsNotADidIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                WatchedRepos.parse("knotless.ingester.repos", List.of("alice/3kaaaaaaaaaa1=app")));
    assertTrue(e.getMessage().startsWith("knotless.ingester.repos entry 1: "), e.getMessage());
    assertTrue(e.getMessage().contains("DID"), e.getMessage());
  }

  @Test
  void theFileAddsToTheSettingAndWinsForTheSameRepository() {
    assertEquals(
        List.of(new WatchedRepo(APP, "new"), new WatchedRepo(LIB, "lib")),
        WatchedRepos.merge(
            List.of(new WatchedRepo(APP, "old")),
            List.of(new WatchedRepo(APP, "new"), new WatchedRepo(LIB, "lib"))));
  }
}
