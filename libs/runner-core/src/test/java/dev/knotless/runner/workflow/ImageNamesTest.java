package dev.knotless.runner.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ImageNamesTest {

  @Test
  void namesDockerTakesAreAccepted() {
    for (String ok :
        List.of(
            "alpine",
            "debian:bookworm-slim",
            "library/node:22",
            "ghcr.io/knotless/run-base:1.2.3",
            "localhost:5000/a/b__c-d.e:Latest_1",
            "[::1]:5000/x",
            "registry.invalid/none:1",
            "busybox@sha256:" + "0123456789abcdef".repeat(4),
            "busybox:1.36@sha256:" + "0123456789abcdef".repeat(4))) {
      assertTrue(ImageNames.problem(ok).isEmpty(), ok + ": " + ImageNames.problem(ok));
    }
  }

  @Test
  void aShellSubstitutionIsRefusedNamingTheImageAndTheCharacters() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ImageNames.check("x$(id);y"));
    assertEquals(
        "image \"x$(id);y\" holds '$', '(', ')' and ';', which no image name may", e.getMessage());
  }

  @Test
  void aNameThatWouldBreakTheLineIsQuotedWithItsBreaksEscaped() {
    String m =
        assertThrows(IllegalArgumentException.class, () -> ImageNames.check("a\nb\u202ec`d\\"))
            .getMessage();
    assertFalse(m.contains("\n") || m.contains("\u202e"), m);
    assertTrue(m.startsWith("image \"a\\nb\\u202ec`d\\\\\" holds "), m);
  }

  @Test
  void otherMalformedNamesSayWhatIsWrong() {
    assertEquals(
        "has capitals in its repository path, which docker takes only in lower case",
        ImageNames.problem("Alpine:3").orElseThrow());
    assertEquals(
        "is not an image name of the form [host[:port]/]path[:tag][@digest]",
        ImageNames.problem("alpine::3").orElseThrow());
    assertTrue(ImageNames.problem("a/" + "b".repeat(300)).orElseThrow().contains("over 255"));
    assertEquals("is empty", ImageNames.problem("").orElseThrow());
  }
}
