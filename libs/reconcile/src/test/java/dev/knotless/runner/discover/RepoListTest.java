package dev.knotless.runner.discover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class RepoListTest {

  @Test
  void readsOneLabelALineSkippingCommentsBlankLinesAndRepeats() {
    assertEquals(
        List.of("alice.test/app", "did:plc:abc/site"),
        RepoList.parse(
            "repos.txt",
            List.of("# watched", "", "  alice.test/app  ", "did:plc:abc/site", "alice.test/app")));
  }

  @Test
  void anEntryInAnotherFormatIsRefusedNamingTheFileAndLine() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RepoList.parse("repos.txt", List.of("alice.test/app", "did:plc:abc/3kq=app")));
    assertEquals(
        "repos.txt line 2: expected <handle or did>/<name>, got \"did:plc:abc/3kq=app\"",
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RepoList.check("x", "alice.test"));
    assertThrows(IllegalArgumentException.class, () -> RepoList.check("x", "a/b/c"));
  }

  @Test
  void anEmptyListIsEmpty() {
    assertEquals(List.of(), RepoList.parse("repos.txt", List.of("# nothing yet")));
  }
}
