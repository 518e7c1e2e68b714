package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a pod left at a cache path, written over what the run started from: only what differs is
 * written, so an overlay's upper layer gets the run's changes and nothing else.
 */
class TreeSyncTest {

  @TempDir Path tmp;

  @Test
  void writesWhatChangedRemovesWhatWentAndLeavesTheRestUntouched() throws Exception {
    Path pod = Files.createDirectories(tmp.resolve("pod"));
    Path base = Files.createDirectories(tmp.resolve("base"));
    Files.createDirectories(base.resolve("d"));
    Files.writeString(base.resolve("d/same.js"), "same");
    Files.writeString(base.resolve("d/changed.js"), "old!");
    Files.writeString(base.resolve("gone"), "x");
    Files.createDirectories(base.resolve("dir-then-file/inner"));
    Files.createSymbolicLink(base.resolve("link"), Path.of("d/same.js"));
    Object sameKey = Files.readAttributes(base.resolve("d/same.js"), "unix:ino").get("ino");

    Files.createDirectories(pod.resolve("d"));
    Files.writeString(pod.resolve("d/same.js"), "same");
    Files.writeString(pod.resolve("d/changed.js"), "new!");
    Files.writeString(pod.resolve("d/added.js"), "added");
    Files.writeString(pod.resolve("dir-then-file"), "a file now");
    Files.createSymbolicLink(pod.resolve("link"), Path.of("d/changed.js"));

    int changed = TreeSync.sync(pod, base);

    assertEquals(5, changed, "changed.js, added.js, gone, dir-then-file, link");
    assertEquals("new!", Files.readString(base.resolve("d/changed.js")));
    assertEquals("added", Files.readString(base.resolve("d/added.js")));
    assertFalse(Files.exists(base.resolve("gone")));
    assertEquals("a file now", Files.readString(base.resolve("dir-then-file")));
    assertEquals(Path.of("d/changed.js"), Files.readSymbolicLink(base.resolve("link")));
    assertEquals(
        sameKey,
        Files.readAttributes(base.resolve("d/same.js"), "unix:ino").get("ino"),
        "an unchanged file was written again");
    assertEquals(0, TreeSync.sync(pod, base), "a second sync finds nothing to do");
  }

  @Test
  void anExecuteBitAloneIsAChange() throws Exception {
    Path pod = Files.createDirectories(tmp.resolve("pod"));
    Path base = Files.createDirectories(tmp.resolve("base"));
    Files.writeString(base.resolve("run.sh"), "echo hi");
    Files.writeString(pod.resolve("run.sh"), "echo hi");
    Files.setPosixFilePermissions(
        pod.resolve("run.sh"),
        java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));

    assertEquals(1, TreeSync.sync(pod, base));
    assertTrue(Files.isExecutable(base.resolve("run.sh")));
    assertTrue(Files.isRegularFile(base.resolve("run.sh"), LinkOption.NOFOLLOW_LINKS));
  }
}
