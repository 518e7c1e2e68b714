package dev.knotless.storage.git;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every object read from the files is git's own, byte for byte: loose, packed whole, and deltas
 * against a base by offset or by name; and a damaged pack gives no answer rather than a wrong one.
 */
class StoredObjectsIT {

  @Test
  void readsEveryObjectAsGitDoes(@TempDir Path tmp) throws Exception {
    Path work = history(tmp);
    Git git = Git.at(work.resolve(".git"));
    Map<String, Object[]> all = everyObject(git);
    assertTrue(all.size() > 200, "a history with many objects: " + all.size());
    assertTrue(deltas(git) > 50, "many of them deltas");
    assertTrue(
        Files.list(git.gitDir().resolve("objects"))
            .anyMatch(p -> p.getFileName().toString().length() == 2),
        "some loose");

    try (StoredObjects files = StoredObjects.open(git).orElseThrow()) {
      for (Map.Entry<String, Object[]> e : all.entrySet()) {
        String type = (String) e.getValue()[0];
        byte[] data = (byte[]) e.getValue()[1];
        assertEquals(
            Optional.of(new StoredObjects.Header(type, data.length)),
            files.header(e.getKey()),
            e.getKey());
        StoredObjects.Obj o = files.read(e.getKey()).orElseThrow(() -> new AssertionError(e));
        assertEquals(type, o.type(), e.getKey());
        assertArrayEquals(data, o.data(), e.getKey());
      }
      assertEquals(Optional.empty(), files.read("0".repeat(40)), "not there: git is asked");
      assertEquals(Optional.empty(), files.header("ab".repeat(32)), "a SHA-256 name");
    }
  }

  @Test
  void aDamagedPackGivesNoAnswerNotAWrongOne(@TempDir Path tmp) throws Exception {
    Path work = history(tmp);
    Git git = Git.at(work.resolve(".git"));
    Map<String, Object[]> all = everyObject(git);
    Random random = new Random(7);
    int unanswered = 0;
    try (Stream<Path> s = Files.list(git.gitDir().resolve("objects/pack"))) {
      for (Path pack : s.filter(p -> p.toString().endsWith(".pack")).toList()) {
        pack.toFile().setWritable(true);
        long size = Files.size(pack);
        try (var ch = java.nio.channels.FileChannel.open(pack, StandardOpenOption.WRITE)) {
          for (int i = 0; i < 40; i++) {
            byte[] junk = new byte[1 + random.nextInt(8)];
            random.nextBytes(junk);
            ch.write(
                java.nio.ByteBuffer.wrap(junk), 12 + (long) (random.nextDouble() * (size - 40)));
          }
        }
      }
    }
    try (StoredObjects files = StoredObjects.open(git).orElseThrow()) {
      for (Map.Entry<String, Object[]> e : all.entrySet()) {
        Optional<StoredObjects.Obj> o = files.read(e.getKey());
        if (o.isEmpty()) {
          unanswered++;
          continue;
        }
        if (!o.get().type().equals(e.getValue()[0])
            || !java.util.Arrays.equals(o.get().data(), (byte[]) e.getValue()[1])) {
          throw new AssertionError("a wrong answer for " + e.getKey());
        }
      }
    }
    assertTrue(unanswered > 0, "the damage was found somewhere");
  }

  @Test
  void aDeltaOutOfBoundsIsNoAnswer() {
    byte[] base = "hello".getBytes(StandardCharsets.US_ASCII);
    // base size 5, result 3: copy 3 bytes from offset 4 (past the base's end).
    byte[] delta = {5, 3, (byte) 0x91, 4, 3};
    org.junit.jupiter.api.Assertions.assertThrows(CannotSay.class, () -> Deltas.apply(base, delta));
    byte[] ok = {5, 3, (byte) 0x91, 1, 3};
    try {
      assertArrayEquals("ell".getBytes(StandardCharsets.US_ASCII), Deltas.apply(base, ok));
    } catch (CannotSay e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A repository whose objects are in three forms: a pack with deltas by offset (a repack), a pack
   * with deltas by name (pack-objects without offsets, indexed as it is), and loose objects.
   */
  static Path history(Path tmp) throws Exception {
    Path work = tmp.resolve("work");
    Files.createDirectories(work);
    run(work, null, "git", "init", "-q", "-b", "main");
    Random random = new Random(42);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      text.append("line ").append(i).append(' ').append(random.nextInt()).append('\n');
    }
    for (int c = 0; c < 60; c++) {
      if (c == 30) {
        run(work, null, "git", "repack", "-q", "-a", "-d", "-f", "--depth=50", "--window=50");
        run(work, null, "git", "tag", "middle");
      }
      int at = random.nextInt(text.length() - 20);
      text.insert(at, "change " + c + "\n");
      Files.writeString(work.resolve("a.txt"), text);
      Files.createDirectories(work.resolve("dir/sub"));
      Files.writeString(work.resolve("dir/sub/b.txt"), text.substring(0, text.length() / 2) + c);
      Files.writeString(work.resolve("dir/c" + (c % 7) + ".txt"), "small " + c);
      run(work, null, "git", "add", "-A");
      run(work, null, "git", "commit", "-q", "-m", "commit " + c);
      if (c == 50) {
        // Commits 30 to 50 packed with deltas by name, then their loose copies removed.
        byte[] list = run(work, null, "git", "rev-list", "--objects", "HEAD", "^middle");
        byte[] pack = run(work, list, "git", "pack-objects", "--stdout", "--window=50");
        run(work, pack, "git", "index-pack", "--stdin");
        run(work, null, "git", "prune-packed");
      }
    }
    return work;
  }

  /** Every object git lists, by name: its type and content as {@code cat-file --batch} gives. */
  static Map<String, Object[]> everyObject(Git git) throws IOException {
    byte[] out = git.run(null, "cat-file", "--batch-all-objects", "--batch", "--unordered");
    Map<String, Object[]> all = new LinkedHashMap<>();
    InputStream in = new ByteArrayInputStream(out);
    while (true) {
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) != '\n') {
        if (c < 0) {
          return all;
        }
        line.append((char) c);
      }
      String[] f = line.toString().split(" ");
      byte[] data = in.readNBytes(Integer.parseInt(f[2]));
      in.read();
      all.put(f[0], new Object[] {f[1], data});
    }
  }

  private static int deltas(Git git) throws IOException {
    int n = 0;
    try (Stream<Path> s = Files.list(git.gitDir().resolve("objects/pack"))) {
      for (Path idx : s.filter(p -> p.toString().endsWith(".idx")).toList()) {
        String v = git.text("verify-pack", "-v", idx.toString());
        for (String l : v.split("\n")) {
          if (l.split(" +").length == 7) {
            n++;
          }
        }
      }
    }
    return n;
  }

  private static byte[] run(Path dir, byte[] stdin, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(List.of(cmd)).directory(dir.toFile());
    pb.environment().put("GIT_AUTHOR_NAME", "t");
    pb.environment().put("GIT_AUTHOR_EMAIL", "t@example.com");
    pb.environment().put("GIT_COMMITTER_NAME", "t");
    pb.environment().put("GIT_COMMITTER_EMAIL", "t@example.com");
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    Thread feed =
        new Thread(
            () -> {
              try (var o = p.getOutputStream()) {
                if (stdin != null) {
                  o.write(stdin);
                }
              } catch (IOException e) {
                // The process ended early: its exit code says why.
              }
            });
    feed.start();
    byte[] out = p.getInputStream().readAllBytes();
    feed.join();
    assertEquals(0, p.waitFor(), String.join(" ", cmd));
    return out;
  }
}
