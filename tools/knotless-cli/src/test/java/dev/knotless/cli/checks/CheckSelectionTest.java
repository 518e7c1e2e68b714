package dev.knotless.cli.checks;

import static dev.knotless.cli.checks.Checks.check;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CheckSelectionTest {
  static final String MAIN = "mainmainmainmainmainmainmm";
  static final String TOPIC = "topictopictopictopictopict";
  static final String C1 = "1111111111111111111111111111111111111111";
  static final String C2 = "1111111222222222222222222222222222222222";
  static final String C3 = "3333333333333333333333333333333333333333";

  final CheckEntry oldTest =
      check(MAIN, C1, "test", "success", "2026-11-29T10:00:00Z", "2026-11-29T10:01:00Z");
  final CheckEntry oldLint =
      check(MAIN, C1, "lint", "failure", "2026-11-29T10:00:05Z", "2026-11-29T10:00:09Z");
  final CheckEntry newTest = check(MAIN, C2, "test", "running", "2026-11-29T11:00:00Z", null);
  final CheckEntry topic = check(TOPIC, C3, "test", "queued", null, null);
  final List<CheckEntry> all = List.of(oldTest, oldLint, newTest, topic);

  @Test
  void aListingIsNewestFirstByStartElseFilingAndNarrowsByRefWorkflowAndStatus() {
    // The queued one has only createdAt, 10:00:00, the earliest.
    assertEquals(
        List.of(newTest, oldLint, oldTest, topic),
        CheckSelection.filter(all, null, null, null, 10));
    assertEquals(List.of(newTest, oldTest), CheckSelection.filter(all, null, "test", null, 2));
    assertEquals(List.of(newTest), CheckSelection.filter(all, null, "test", null, 1));
    assertEquals(List.of(oldLint), CheckSelection.filter(all, null, null, "failure", 10));
    assertEquals(List.of(topic), CheckSelection.filter(all, "refs/heads/topi", null, null, 10));
  }

  @Test
  void aStatusThatIsNoCheckStatusIsRefusedNamingTheOnesThereAre() {
    assertEquals("failure", CheckSelection.status("FAILURE"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CheckSelection.status("bogus"));
    assertTrue(
        e.getMessage().contains("bogus") && e.getMessage().contains("cancelled"), e.getMessage());
  }

  @Test
  void aCheckIsNamedByItsKeyAPrefixAfterTheRepositoryOrItsCommitAndWorkflow() {
    assertEquals(new CheckSelection.One(oldLint), CheckSelection.pick(all, oldLint.rkey()));
    assertEquals(new CheckSelection.One(topic), CheckSelection.pick(all, "topic"));
    assertEquals(new CheckSelection.One(topic), CheckSelection.pick(all, "3333"));
    assertEquals(new CheckSelection.One(oldLint), CheckSelection.pick(all, C1 + ".lint"));
    assertEquals(new CheckSelection.One(oldLint), CheckSelection.pick(all, "11111111.lint"));
  }

  @Test
  void aNameMatchingSeveralChecksOrNoneSaysSo() {
    CheckSelection.Picked several = CheckSelection.pick(all, "1111111");
    assertInstanceOf(CheckSelection.Several.class, several);
    assertEquals(List.of(newTest, oldLint, oldTest), ((CheckSelection.Several) several).matches());
    assertEquals(new CheckSelection.NoneMatch("9999"), CheckSelection.pick(all, "9999"));
    // Three characters of a commit are too few to count as naming one.
    assertInstanceOf(CheckSelection.NoneMatch.class, CheckSelection.pick(all, "333"));
    assertInstanceOf(CheckSelection.NoneMatch.class, CheckSelection.pick(all, ""));
  }

  @Test
  void theShortIdIsTheShortestNameThatPicksOutTheCheckAndPicksItBack() {
    assertEquals("3333333", CheckSelection.shortId(topic, all));
    assertEquals("1111111.lint", CheckSelection.shortId(oldLint, all));
    for (CheckEntry c : all) {
      assertEquals(
          new CheckSelection.One(c), CheckSelection.pick(all, CheckSelection.shortId(c, all)));
    }
    // The same commit and workflow on two refs: the key after the repository tells them apart.
    CheckEntry sameOnTopic = check(TOPIC, C1, "test", "success", null, null);
    List<CheckEntry> twice = List.of(oldTest, sameOnTopic);
    String id = CheckSelection.shortId(sameOnTopic, twice);
    assertTrue(id.startsWith("topi"), id);
    assertEquals(new CheckSelection.One(sameOnTopic), CheckSelection.pick(twice, id));
  }

  @Test
  void theNewestOfARefOrWorkflowIsPickedWithoutAName() {
    assertEquals(
        new CheckSelection.One(newTest), CheckSelection.newest(all, "refs/heads/main", "test"));
    assertEquals(new CheckSelection.One(oldLint), CheckSelection.newest(all, null, "lint"));
    assertInstanceOf(
        CheckSelection.NoneMatch.class, CheckSelection.newest(all, "refs/heads/gone", null));
  }
}
