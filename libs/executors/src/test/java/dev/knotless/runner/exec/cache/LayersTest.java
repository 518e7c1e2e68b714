package dev.knotless.runner.exec.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Promotion's apply on plain directories, with whiteouts and opaque marks made as overlayfs makes
 * them (a character device 0/0, {@code trusted.overlay.opaque=y}). Needs root, as the runner does.
 */
class LayersTest {

  @TempDir Path tmp;

  private Path base;
  private Path upper;

  private void write(Path p, String text) throws IOException {
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  private List<String> tree(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(p -> !p.equals(root))
          .map(p -> root.relativize(p).toString() + (Files.isDirectory(p) ? "/" : ""))
          .sorted()
          .toList();
    }
  }

  private Path baseWithModules() throws IOException {
    base = tmp.resolve("base");
    write(base.resolve("node_modules/left/index.js"), "left 1");
    write(base.resolve("node_modules/pad/index.js"), "pad 1");
    write(base.resolve("node_modules/pad/README"), "pad readme");
    write(base.resolve("stale.lock"), "old");
    Files.createSymbolicLink(base.resolve("link"), Path.of("node_modules/left"));
    upper = Files.createDirectories(tmp.resolve("upper"));
    return base;
  }

  private Path applied() throws IOException {
    Path next = tmp.resolve("next");
    Layers.cloneLinked(base, next);
    Layers.apply(upper, next);
    return next;
  }

  @Test
  void aCloneLinksEveryFileAndKeepsLinksAsLinks() throws IOException {
    baseWithModules();
    Path next = tmp.resolve("next");
    Layers.cloneLinked(base, next);
    assertEquals(tree(base), tree(next));
    assertEquals(
        Files.getAttribute(base.resolve("stale.lock"), "unix:ino"),
        Files.getAttribute(next.resolve("stale.lock"), "unix:ino"),
        "a file of the clone is a hard link to the base's, not a copy");
    assertTrue(Files.isSymbolicLink(next.resolve("link")));
  }

  @Test
  void aWhiteoutDeletesAFileAndADirectoryAndTheBaseKeepsThem() throws IOException {
    baseWithModules();
    Native.whiteout(upper.resolve("stale.lock"));
    Files.createDirectories(upper.resolve("node_modules"));
    Native.whiteout(upper.resolve("node_modules/pad"));
    Path next = applied();
    assertFalse(Files.exists(next.resolve("stale.lock"), LinkOption.NOFOLLOW_LINKS));
    assertFalse(Files.exists(next.resolve("node_modules/pad")));
    assertTrue(Files.exists(next.resolve("node_modules/left/index.js")), "a merge keeps the rest");
    assertTrue(Files.exists(base.resolve("stale.lock")), "the base is never changed");
    assertTrue(Files.exists(base.resolve("node_modules/pad/README")));
  }

  @Test
  void anOpaqueDirectoryReplacesTheOneUnderItWhole() throws IOException {
    baseWithModules();
    Path pad = Files.createDirectories(upper.resolve("node_modules/pad"));
    Native.setXattr(pad, Layers.OPAQUE, "y");
    write(pad.resolve("index.js"), "pad 2");
    Path next = applied();
    assertEquals(List.of("index.js"), tree(next.resolve("node_modules/pad")));
    assertEquals("pad 2", Files.readString(next.resolve("node_modules/pad/index.js")));
    assertNull(
        Native.xattr(next.resolve("node_modules/pad"), Layers.OPAQUE),
        "no opaque mark is left in a base");
    assertEquals("pad 1", Files.readString(base.resolve("node_modules/pad/index.js")));
  }

  @Test
  void aChangedFileReplacesTheBasesAndItsOldBytesStayInTheOldGeneration() throws IOException {
    baseWithModules();
    write(upper.resolve("node_modules/left/index.js"), "left 2");
    write(upper.resolve("node_modules/new/index.js"), "new 1");
    Path next = applied();
    assertEquals("left 2", Files.readString(next.resolve("node_modules/left/index.js")));
    assertEquals("new 1", Files.readString(next.resolve("node_modules/new/index.js")));
    assertEquals("pad 1", Files.readString(next.resolve("node_modules/pad/index.js")));
    assertEquals("left 1", Files.readString(base.resolve("node_modules/left/index.js")));
    assertEquals(List.of("node_modules/", "node_modules/left/"), tree(upper));
  }

  @Test
  void aDirectoryMovedInWholeLosesTheMarksInsideIt() throws IOException {
    baseWithModules();
    Path fresh = Files.createDirectories(upper.resolve("dist/sub"));
    Native.setXattr(fresh, Layers.OPAQUE, "y");
    Native.whiteout(upper.resolve("dist/gone"));
    write(upper.resolve("dist/sub/a.txt"), "a");
    Path next = applied();
    assertEquals(List.of("sub/", "sub/a.txt"), tree(next.resolve("dist")));
    assertNull(Native.xattr(next.resolve("dist/sub"), Layers.OPAQUE));
  }

  @Test
  void aFileOverADirectoryAndADirectoryOverAFileReplaceIt() throws IOException {
    baseWithModules();
    write(upper.resolve("node_modules/pad"), "now a file");
    write(upper.resolve("stale.lock/inside"), "now a directory");
    Path next = applied();
    assertEquals("now a file", Files.readString(next.resolve("node_modules/pad")));
    assertEquals("now a directory", Files.readString(next.resolve("stale.lock/inside")));
  }

  @Test
  void theSizeCountsEachFileOnce() throws IOException {
    baseWithModules();
    Path next = tmp.resolve("next");
    Layers.cloneLinked(base, next);
    long one = Layers.sizeOf(base);
    assertEquals(6 + 5 + 10 + 3, one);
    Files.createLink(next.resolve("again"), next.resolve("stale.lock"));
    assertEquals(one, Layers.sizeOf(next));
  }
}
