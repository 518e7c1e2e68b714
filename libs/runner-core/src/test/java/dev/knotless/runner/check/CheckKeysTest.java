package dev.knotless.runner.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.RecordKeys;
import org.junit.jupiter.api.Test;

class CheckKeysTest {

  static final String OWNER = "did:plc:ewvi7nxzyoun6zhxrhs64oiz";
  static final String REPO = "3lbqmxnq7cs2a";
  static final String C1 = "a".repeat(40);
  static final String C2 = "b".repeat(40);
  static final String PULL = "at://did:plc:bob/dev.knotless.pull/3lbqmxnq7cs2b";

  @Test
  void aPushKeyIsOwnerHashRepoKeyRefHashCommitAndWorkflow() {
    assertEquals(
        Hashes.h(OWNER) + "." + REPO + "." + Hashes.h("refs/heads/main") + "." + C1 + ".ci",
        CheckKeys.push(OWNER, REPO, "refs/heads/main", C1, "ci"));
  }

  @Test
  void aPullKeyHashesThePullUriAndNamesHeadAndBase() {
    assertEquals(
        Hashes.h(OWNER) + "." + REPO + "." + Hashes.h(PULL) + "." + C1 + "." + C2 + ".ci",
        CheckKeys.pull(OWNER, REPO, PULL, C1, C2, "ci"));
    assertNotEquals(
        CheckKeys.pull(OWNER, REPO, PULL, C1, C2, "ci"),
        CheckKeys.pull(OWNER, REPO, PULL, C1, C1, "ci"),
        "a pull run against a newer base is a check of its own");
  }

  @Test
  void aQueueKeyHashesQueueAndTheBranchRef() {
    assertEquals(
        Hashes.h(OWNER)
            + "."
            + REPO
            + "."
            + Hashes.h("queue refs/heads/main")
            + "."
            + C1
            + "."
            + C2
            + ".ci",
        CheckKeys.queue(OWNER, REPO, "refs/heads/main", C1, C2, "ci"));
  }

  @Test
  void prefixesNarrowFromRepoToRefToCommit() {
    String key = CheckKeys.push(OWNER, REPO, "refs/heads/main", C1, "ci");
    assertTrue(key.startsWith(CheckKeys.repoPrefix(OWNER, REPO)));
    assertTrue(key.startsWith(CheckKeys.refPrefix(OWNER, REPO, "refs/heads/main")));
    assertTrue(key.startsWith(CheckKeys.commitPrefix(OWNER, REPO, "refs/heads/main", C1)));
    assertTrue(
        !key.startsWith(CheckKeys.commitPrefix(OWNER, REPO, "refs/heads/main", C2))
            && !key.startsWith(CheckKeys.refPrefix(OWNER, REPO, "refs/heads/mai")));
    assertTrue(
        CheckKeys.pull(OWNER, REPO, PULL, C1, C2, "x")
            .startsWith(CheckKeys.pullPrefix(OWNER, REPO, PULL)));
    assertTrue(
        CheckKeys.queue(OWNER, REPO, "refs/heads/main", C1, C2, "x")
            .startsWith(CheckKeys.queuePrefix(OWNER, REPO, "refs/heads/main")));
  }

  @Test
  void workflowNamesWithOtherCharactersAreEscapedIntoValidDistinctKeys() {
    assertEquals("ci.lint:v2_x-y", CheckKeys.workflowPart("ci.lint:v2_x-y"));
    assertEquals("unit~20tests", CheckKeys.workflowPart("unit tests"));
    assertEquals("a~7Eb", CheckKeys.workflowPart("a~b"));
    assertEquals("~C3~A9t~C3~A9", CheckKeys.workflowPart("été"));
    assertNotEquals(CheckKeys.workflowPart("a b"), CheckKeys.workflowPart("a~20b"));
    assertNotEquals(CheckKeys.workflowPart("a/b"), CheckKeys.workflowPart("a b"));
    for (String name : new String[] {"deploy site", "ci/ℕ", "x".repeat(100), "é".repeat(100)}) {
      String key = CheckKeys.pull(OWNER, REPO, PULL, "c".repeat(64), "d".repeat(64), name);
      assertTrue(RecordKeys.isValid(key), key);
    }
  }

  @Test
  void aVeryLongEscapedNameIsCutAndHashedAndStaysDistinct() {
    String a = "é".repeat(99) + "a";
    String b = "é".repeat(99) + "b";
    String pa = CheckKeys.workflowPart(a);
    assertTrue(pa.length() <= CheckKeys.MAX_WORKFLOW_PART, pa);
    assertTrue(pa.endsWith("~~" + Hashes.h(a)), pa);
    assertNotEquals(pa, CheckKeys.workflowPart(b));
    assertTrue(
        pa.substring(0, pa.indexOf("~~")).matches("(~[0-9A-F]{2})*"), "not cut in an escape");
  }

  @Test
  void badPartsAreRefusedWithTheReason() {
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> CheckKeys.push(OWNER, REPO, "main", C1, "ci"))
            .getMessage()
            .contains("full ref"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> CheckKeys.push(OWNER, REPO, "refs/heads/main", "abc", "ci"))
            .getMessage()
            .contains("commit id"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CheckKeys.push(OWNER, "a.b", "refs/heads/main", C1, "ci"));
    assertThrows(
        IllegalArgumentException.class,
        () -> CheckKeys.queue(OWNER, REPO, "refs/tags/v1", C1, C2, "ci"));
  }
}
