package dev.knotless.runner.pull;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class PullTrustAndStateTest {

  static final String OWNER = "did:plc:owner";
  static final String COLLAB = "did:plc:collab";
  static final String AGENT = "did:plc:agent";
  static final String STRANGER = "did:plc:stranger";

  static PullTrust trust(String author, String headOwner) {
    return PullTrust.of(author, headOwner, OWNER, List.of(COLLAB), List.of(AGENT));
  }

  @Test
  void aPullIsTrustedOnlyWhenItsAuthorAndItsHeadsOwnerBothWriteToTheRepository() {
    assertEquals(PullTrust.TRUSTED, trust(OWNER, OWNER));
    assertEquals(PullTrust.TRUSTED, trust(COLLAB, OWNER));
    assertEquals(PullTrust.UNTRUSTED, trust(COLLAB, STRANGER), "a collaborator's pull of a fork");
    assertEquals(PullTrust.UNTRUSTED, trust(STRANGER, OWNER), "a stranger's pull of a branch");
  }

  @Test
  void anAgentsPullRunsAsItMovesButUntrustedEvenWhenTheAgentIsACollaboratorToo() {
    assertEquals(PullTrust.AGENT, trust(AGENT, OWNER));
    assertEquals(PullTrust.AGENT, trust(COLLAB, AGENT));
    assertEquals(
        PullTrust.AGENT, PullTrust.of(COLLAB, COLLAB, OWNER, List.of(COLLAB), List.of(COLLAB)));
    assertEquals(PullTrust.UNTRUSTED, trust(AGENT, STRANGER));
    assertTrue(PullTrust.AGENT.runsAsItMoves());
    assertFalse(PullTrust.UNTRUSTED.runsAsItMoves());
  }

  static PullState state(String author, String state, String at) {
    return new PullState("at://" + author + "/dev.knotless.state/" + at, author, state, at);
  }

  @Test
  void aPullWithNoStateIsOpenAndTheNewestStateOfTheOwnerOrACollaboratorDecides() {
    assertTrue(PullState.open(List.of(), OWNER, List.of(COLLAB)));
    assertFalse(
        PullState.open(
            List.of(
                state(OWNER, "open", "2026-01-01T00:00:00Z"),
                state(COLLAB, "closed", "2026-01-02T00:00:00Z")),
            OWNER,
            List.of(COLLAB)));
    assertTrue(
        PullState.open(
            List.of(
                state(OWNER, "merged", "2026-01-01T00:00:00Z"),
                state(OWNER, "open", "2026-01-02T00:00:00Z")),
            OWNER,
            List.of(COLLAB)));
  }

  @Test
  void aStateAStrangerWroteCountsForNothing() {
    assertTrue(
        PullState.open(
            List.of(state(STRANGER, "closed", "2026-01-02T00:00:00Z")), OWNER, List.of(COLLAB)));
    assertFalse(
        PullState.open(
            List.of(
                state(OWNER, "closed", "2026-01-01T00:00:00Z"),
                state(STRANGER, "open", "2026-01-02T00:00:00Z")),
            OWNER,
            List.of(COLLAB)));
  }

  static final ObjectMapper JSON = new ObjectMapper();
  static final String URI = "at://did:plc:author/dev.knotless.pull/3kaaaaaaaaaaa.3kbbbbbbbbbbb";

  @Test
  void aPullRecordNamesItsBaseAndHeadBranches() throws Exception {
    PullRecord p =
        PullRecord.parse(
            URI,
            JSON.readTree(
                """
                {"base": {"repo": "at://did:plc:owner/dev.knotless.repo/app", "key": "3kaaaaaaaaaaa", "ref": "refs/heads/main"},
                 "head": {"repo": "at://did:plc:author/dev.knotless.repo/app-fork", "key": "3kddddddddddd", "ref": "refs/heads/fix"},
                 "title": "fix", "draft": true, "createdAt": "2026-01-01T00:00:00Z"}
                """));
    assertEquals("did:plc:author", p.author());
    assertEquals(
        new PullRecord.Branch("did:plc:owner", "app", "3kaaaaaaaaaaa", "refs/heads/main"),
        p.base());
    assertEquals("app-fork", p.head().name());
    assertTrue(p.draft());
    assertEquals("3kaaaaaaaaaaa.3kbbbbbbbbbbb", p.rkey());
  }

  @Test
  void aPullRecordWithABadBaseSaysWhatIsWrong() throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PullRecord.parse(
                    URI,
                    JSON.readTree(
                        """
                        {"base": {"repo": "at://did:plc:owner/dev.knotless.repo/app", "key": "3kaaaaaaaaaaa", "ref": "main"},
                         "head": {"repo": "at://did:plc:author/dev.knotless.repo/app", "key": "3kddddddddddd", "ref": "refs/heads/fix"}}
                        """)));
    assertTrue(e.getMessage().contains("base \"main\" is not a branch's full ref"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> PullRecord.parse(URI, JSON.readTree("{}")));
  }
}
