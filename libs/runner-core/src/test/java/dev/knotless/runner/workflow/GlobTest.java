package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GlobTest {

  @Test
  void singleStarStaysWithinOneSegment() {
    Glob g = Glob.path("src/*.java");
    assertTrue(g.matches("src/Main.java"));
    assertFalse(g.matches("src/a/Main.java"));
    assertFalse(g.matches("src/Main.javax"));
  }

  @Test
  void doubleStarCrossesSegmentsAndMayMatchNone() {
    Glob g = Glob.path("src/**/test/*.java");
    assertTrue(g.matches("src/test/A.java"));
    assertTrue(g.matches("src/a/b/test/A.java"));
    assertFalse(g.matches("lib/src/test/A.java"));
    assertTrue(Glob.path("docs/**").matches("docs/a/b/c.md"));
    assertFalse(Glob.path("docs/**").matches("docs"));
    assertTrue(Glob.path("**/*.md").matches("README.md"));
    assertTrue(Glob.path("**/*.md").matches("a/b/README.md"));
    assertTrue(Glob.path("**").matches("anything/at/all"));
  }

  @Test
  void questionMarkAndClassesMatchOneCharacterButNeverASlash() {
    assertTrue(Glob.path("v?.txt").matches("v1.txt"));
    assertFalse(Glob.path("v?.txt").matches("v/.txt"));
    assertTrue(Glob.path("[abc].txt").matches("b.txt"));
    assertFalse(Glob.path("[abc].txt").matches("d.txt"));
    assertTrue(Glob.path("[a-c]x").matches("bx"));
    assertTrue(Glob.path("[!a-c]x").matches("dx"));
    assertFalse(Glob.path("[!a-c]x").matches("ax"));
    assertFalse(Glob.path("a[!b]c").matches("a/c"));
    assertFalse(Glob.path("a[!-0]c").matches("a/c"));
    assertFalse(Glob.path("a[.-0]c").matches("a/c"));
  }

  @Test
  void regexCharactersAreLiteral() {
    assertTrue(Glob.path("a+b(c).{d}$").matches("a+b(c).{d}$"));
    assertFalse(Glob.path("a.b").matches("axb"));
    assertTrue(Glob.path("a\\*b").matches("a*b"));
    assertFalse(Glob.path("a\\*b").matches("axb"));
  }

  @Test
  void aBareRefPatternIsABranchNameNotAnySuffix() {
    Glob main = Glob.ref("main");
    assertEquals("refs/heads/main", main.full());
    assertTrue(main.matches("refs/heads/main"));
    assertFalse(main.matches("refs/tags/main"));
    assertFalse(main.matches("main"));
    assertFalse(main.matches("refs/heads/feature/main"));
    assertTrue(Glob.ref("release/*").matches("refs/heads/release/1.0"));
    assertTrue(Glob.ref("refs/tags/v*").matches("refs/tags/v1.2"));
    assertFalse(Glob.ref("refs/tags/v*").matches("refs/heads/v1.2"));
  }

  @Test
  void badPatternsAreRefusedWithTheReason() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Glob.path("src/[ab"))
            .getMessage()
            .contains("never closed"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Glob.path("/src/**"))
            .getMessage()
            .contains("relative to the repository root"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Glob.path("src/"))
            .getMessage()
            .contains("src/**"));
    assertThrows(IllegalArgumentException.class, () -> Glob.path("a\\"));
    assertThrows(IllegalArgumentException.class, () -> Glob.path("[z-a]"));
    assertThrows(IllegalArgumentException.class, () -> Glob.ref(""));
  }
}
