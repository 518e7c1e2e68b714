package dev.knotless.storage.git;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small plain pack is written as loose objects git reads back byte for byte; anything else is
 * left, with nothing written, to index-pack.
 */
class LooseObjectsIT {

  @Test
  void aPushSizedPackBecomesLooseObjectsGitReadsAndFsckAccepts(@TempDir Path tmp) throws Exception {
    Git source = repoWithCommit(tmp.resolve("src"), "hello\n", "second file\n");
    String head = text(source.run(null, "rev-parse", "HEAD"));
    byte[] pack = packOf(source, head);
    Git mirror = bare(tmp.resolve("mirror.git"));

    assertTrue(LooseObjects.write(mirror, pack).isPresent());

    List<String> names =
        text(source.run(null, "rev-list", "--objects", head))
            .lines()
            .map(l -> l.split(" ")[0])
            .toList();
    assertEquals(4, names.size(), "commit, tree and two blobs");
    for (String name : names) {
      Path file = looseFile(mirror, name);
      assertTrue(Files.isRegularFile(file), name + " is loose");
      assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
      assertArrayEquals(
          source.run(null, "cat-file", "-p", name), mirror.run(null, "cat-file", "-p", name));
    }
    mirror.run(null, "update-ref", "refs/heads/main", head);
    mirror.run(null, "fsck", "--strict", "--no-dangling");
    try (Stream<Path> s = Files.walk(mirror.gitDir().resolve("objects"))) {
      assertFalse(s.anyMatch(p -> p.getFileName().toString().startsWith("tmp_obj_")));
    }
  }

  @Test
  void aPackWithADeltaIsLeftToIndexPack(@TempDir Path tmp) throws Exception {
    StringBuilder big = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      big.append("line ").append(i).append(" of a file long enough to be worth a delta\n");
    }
    Git source = repoWithCommit(tmp.resolve("src"), big.toString(), big + "one more line\n");
    String head = text(source.run(null, "rev-parse", "HEAD"));
    byte[] pack = packOf(source, head);
    Git mirror = bare(tmp.resolve("mirror.git"));

    assertFalse(
        LooseObjects.write(mirror, pack).isPresent(), "the second blob is a delta of the first");
    assertNoLooseObjects(mirror);
  }

  @Test
  void aDamagedPackWritesNothing(@TempDir Path tmp) throws Exception {
    Git source = repoWithCommit(tmp.resolve("src"), "hello\n", "second file\n");
    byte[] pack = packOf(source, text(source.run(null, "rev-parse", "HEAD")));
    Git mirror = bare(tmp.resolve("mirror.git"));

    byte[] flipped = pack.clone();
    flipped[20] ^= 1;
    assertFalse(LooseObjects.write(mirror, flipped).isPresent(), "the checksum no longer matches");
    assertFalse(
        LooseObjects.write(mirror, sealed(Arrays.copyOf(flipped, flipped.length - 20))).isPresent(),
        "with a checksum that matches, it does not inflate");
    assertFalse(
        LooseObjects.write(mirror, sealed(Arrays.copyOf(pack, pack.length - 25))).isPresent(),
        "the last object cut short");
    assertNoLooseObjects(mirror);
  }

  @Test
  void anObjectWhoseStatedSizeIsWrongWritesNothing(@TempDir Path tmp) throws Exception {
    Git mirror = bare(tmp.resolve("mirror.git"));
    assertTrue(
        LooseObjects.write(mirror, handMade(5, "hello")).isPresent(), "a well-made one is taken");
    Git other = bare(tmp.resolve("other.git"));
    assertFalse(LooseObjects.write(other, handMade(4, "hello")).isPresent(), "more than stated");
    assertFalse(LooseObjects.write(other, handMade(6, "hello")).isPresent(), "less than stated");
    assertNoLooseObjects(other);
  }

  @Test
  void anObjectTheRepositoryHasWithTheSameContentIsKeptAndTheRestWritten(@TempDir Path tmp)
      throws Exception {
    Git source = repoWithCommit(tmp.resolve("src"), "hello\n", "second file\n");
    String head = text(source.run(null, "rev-parse", "HEAD"));
    byte[] pack = packOf(source, head);
    Git mirror = bare(tmp.resolve("mirror.git"));
    String present =
        text(
            mirror.run("hello\n".getBytes(StandardCharsets.UTF_8), "hash-object", "-w", "--stdin"));
    // Packed, as a mirror's older objects are: read through the pack's index.
    mirror.run(
        (present + "\n").getBytes(StandardCharsets.UTF_8),
        "pack-objects",
        "-q",
        mirror.gitDir().resolve("objects/pack/pack").toString());
    mirror.run(null, "prune-packed");
    Path loose = looseFile(mirror, present);
    assertFalse(Files.exists(loose), "packed, not loose");

    var written = LooseObjects.write(mirror, pack);

    assertTrue(written.isPresent(), "a revert's blob keeps the pack off index-pack");
    assertEquals(4, written.get().size(), "all four objects are the pack's, for the history check");
    assertFalse(Files.exists(loose), present + " is not written again");
    mirror.run(null, "update-ref", "refs/heads/main", head);
    mirror.run(null, "fsck", "--strict", "--no-dangling");
  }

  @Test
  void anObjectStoredWithOtherContentUnderItsNameLeavesThePackToIndexPack(@TempDir Path tmp)
      throws Exception {
    Git source = repoWithCommit(tmp.resolve("src"), "hello\n", "second file\n");
    byte[] pack = packOf(source, text(source.run(null, "rev-parse", "HEAD")));
    Git mirror = bare(tmp.resolve("mirror.git"));
    String hello =
        text(source.run("hello\n".getBytes(StandardCharsets.UTF_8), "hash-object", "--stdin"));
    // What a collision would look like on disk: the name taken by other bytes.
    Path file = looseFile(mirror, hello);
    Files.createDirectories(file.getParent());
    ByteArrayOutputStream z = new ByteArrayOutputStream();
    try (DeflaterOutputStream d = new DeflaterOutputStream(z)) {
      d.write("blob 6\0howdy\n".getBytes(StandardCharsets.UTF_8));
    }
    Files.write(file, z.toByteArray());

    assertFalse(LooseObjects.write(mirror, pack).isPresent(), "index-pack judges the two");
    try (Stream<Path> s = Files.walk(mirror.gitDir().resolve("objects"))) {
      assertEquals(1, s.filter(Files::isRegularFile).count(), "nothing else was written");
    }
  }

  private static Path looseFile(Git git, String name) {
    return git.gitDir().resolve("objects/" + name.substring(0, 2) + "/" + name.substring(2));
  }

  private static Git bare(Path dir) throws Exception {
    Git git = Git.at(dir);
    git.run(null, "init", "--quiet", "--bare", dir.toString());
    return git;
  }

  private static Git repoWithCommit(Path work, String first, String second) throws Exception {
    Files.createDirectories(work);
    Git git = Git.at(work.resolve(".git"));
    git.run(null, "init", "--quiet", work.toString());
    Files.writeString(work.resolve("a.txt"), first, StandardCharsets.UTF_8);
    Files.writeString(work.resolve("b.txt"), second, StandardCharsets.UTF_8);
    Git inWork = git.withEnv("GIT_WORK_TREE", work.toString());
    inWork.run(null, "add", "a.txt", "b.txt");
    inWork
        .withEnv("GIT_AUTHOR_NAME", "a")
        .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
        .withEnv("GIT_COMMITTER_NAME", "a")
        .withEnv("GIT_COMMITTER_EMAIL", "a@example.com")
        .run(null, "commit", "--quiet", "-m", "one");
    return git;
  }

  private static byte[] packOf(Git git, String head) throws Exception {
    return git.run(
        (head + "\n").getBytes(StandardCharsets.UTF_8),
        "pack-objects",
        "--revs",
        "--stdout",
        "-q",
        "--delta-base-offset");
  }

  /** A one-blob pack whose header states {@code statedSize} for {@code content}. */
  private static byte[] handMade(int statedSize, String content) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(new byte[] {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 1});
    out.write((3 << 4) | statedSize); // a blob, the size under 16 so one byte holds it
    ByteArrayOutputStream z = new ByteArrayOutputStream();
    try (DeflaterOutputStream d = new DeflaterOutputStream(z)) {
      d.write(content.getBytes(StandardCharsets.UTF_8));
    }
    out.write(z.toByteArray());
    return sealed(out.toByteArray());
  }

  /** {@code body} followed by its SHA-1, as a pack ends. */
  private static byte[] sealed(byte[] body) throws Exception {
    byte[] sum = MessageDigest.getInstance("SHA-1").digest(body);
    byte[] out = Arrays.copyOf(body, body.length + 20);
    System.arraycopy(sum, 0, out, body.length, 20);
    return out;
  }

  private static void assertNoLooseObjects(Git git) throws Exception {
    try (Stream<Path> s = Files.walk(git.gitDir().resolve("objects"))) {
      assertEquals(
          List.of(),
          s.filter(Files::isRegularFile).filter(p -> !p.toString().contains("/info/")).toList());
    }
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).strip();
  }
}
