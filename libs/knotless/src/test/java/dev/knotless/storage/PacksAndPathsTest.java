package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.commit.RepoPaths;
import dev.knotless.storage.commit.Retries;
import dev.knotless.storage.pack.PackPlacement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PacksAndPathsTest {
  @Test
  void packsUpTo192KiBRideInline() {
    assertTrue(PackPlacement.inline(192 * 1024));
    assertFalse(PackPlacement.inline(192 * 1024 + 1));
  }

  @Test
  void partsAreFourMillionBytesButNeverAboveTheBlobLimit() {
    assertEquals(4_000_000, PackPlacement.firstPartSize(5_242_880));
    assertEquals(4_000_000, PackPlacement.firstPartSize(0));
    assertEquals(100_000, PackPlacement.firstPartSize(100_000));
  }

  @Test
  void halvingFromTheDefaultEndsWithPartsOf62500Bytes() {
    List<Integer> sizes = new ArrayList<>();
    OptionalInt s = OptionalInt.of(PackPlacement.DEFAULT_PART);
    while (s.isPresent()) {
      sizes.add(s.getAsInt());
      s = PackPlacement.halve(s.getAsInt());
    }
    assertEquals(62_500, sizes.get(sizes.size() - 1));
    assertEquals(7, sizes.size());
  }

  @Test
  void partsCoverThePackInOrder() {
    var cuts = PackPlacement.cut(10, 4);
    assertEquals(3, cuts.size());
    assertEquals(8, cuts.get(2)[0]);
    assertEquals(10, cuts.get(2)[1]);
  }

  @Test
  void badPathsAreRefusedNamingTheProblem() {
    assertEquals("src/a.txt", RepoPaths.validate("src/a.txt"));
    for (String bad :
        List.of(
            "",
            "/abs",
            "a//b",
            "a/./b",
            "../x",
            "a/..",
            ".git/config",
            "x/.GIT/y",
            "a\0b",
            "a\nb",
            "dir/")) {
      assertThrows(IllegalArgumentException.class, () -> RepoPaths.validate(bad), bad);
    }
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RepoPaths.validate("a/.Git"))
            .getMessage()
            .contains(".git"));
  }

  @Test
  void replayPausesGrowButStayUnderTheirBoundAndAtMost1280Ms() {
    Random r = new Random(1);
    for (int attempt = 1; attempt <= 10; attempt++) {
      for (int i = 0; i < 200; i++) {
        long ms = Retries.pause(attempt, r).toMillis();
        assertTrue(ms < Math.min(1280, 20L << attempt), attempt + ": " + ms);
      }
    }
  }

  @Test
  void knotlessUrlsAreCheckedNamingWhatIsWrong() {
    var u = KnotlessUrl.parse("knotless://alice.test/repo");
    assertEquals("alice.test", u.owner());
    assertEquals("repo", u.name());
    assertEquals(
        "did:plc:abcdefghijklmnopqrstuvwx",
        KnotlessUrl.parse("knotless://did:plc:abcdefghijklmnopqrstuvwx/r").owner());
    for (String bad :
        List.of(
            "https://alice.test/repo",
            "knotless://alice.test",
            "knotless:///repo",
            "knotless://alice.test/a/b",
            "knotless://alice.test/..",
            "knotless://not a handle/r")) {
      assertThrows(IllegalArgumentException.class, () -> KnotlessUrl.parse(bad), bad);
    }
  }
}
