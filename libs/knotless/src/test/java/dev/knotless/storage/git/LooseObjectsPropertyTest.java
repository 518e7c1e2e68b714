package dev.knotless.storage.git;

import dev.knotless.testing.Fuzz;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pack reader that writes small packs as loose objects, over hostile packs as a PDS could serve
 * them: a real pack mutated byte by byte and sealed again with a checksum that matches (so the
 * mutations reach the objects, past the first check), and random bytes. It takes a pack or declines
 * it; nothing escapes.
 */
class LooseObjectsPropertyTest {

  private static final List<byte[]> TOKENS =
      List.of(
          new byte[] {'P', 'A', 'C', 'K'},
          new byte[] {0x78, (byte) 0x9c},
          new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
          new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x7f},
          new byte[] {0x60},
          new byte[] {0x70},
          new byte[] {(byte) 0xbf, (byte) 0xff, (byte) 0xff, 0x7f},
          new byte[] {0, 0, 0, 0});

  @Test
  void aMutatedPackIsTakenOrDeclinedAndNothingElse(@TempDir Path tmp) throws Exception {
    byte[] valid = realPack(tmp);
    Random r = new Random(Fuzz.SEED + 7);
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally tally = new Fuzz.Tally();
          for (int i = 0; i < n; i++) {
            byte[] pack =
                i % 10 == 0
                    ? valid
                    : i % 5 == 0
                        ? Fuzz.randomBytes(r, 512)
                        : sealed(
                            Fuzz.mutate(
                                r,
                                Arrays.copyOf(valid, valid.length - 20),
                                TOKENS,
                                new byte[] {0x78}));
            tally.add(
                Fuzz.holds(
                    "LooseObjects.parse",
                    pack,
                    p -> {
                      if (LooseObjects.parse(p) == null) {
                        throw new IOException("declined");
                      }
                      return p;
                    },
                    IOException.class));
          }
          tally.assertBothOutcomes("LooseObjects.parse");
        });
  }

  private static byte[] realPack(Path tmp) throws Exception {
    Path work = Files.createDirectories(tmp.resolve("src"));
    Git git = Git.at(work.resolve(".git"));
    git.run(null, "init", "--quiet", work.toString());
    Files.writeString(work.resolve("a.txt"), "hello\n", StandardCharsets.UTF_8);
    Files.writeString(work.resolve("b.txt"), "a second file\n", StandardCharsets.UTF_8);
    Git inWork =
        git.withEnv("GIT_WORK_TREE", work.toString())
            .withEnv("GIT_AUTHOR_NAME", "a")
            .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
            .withEnv("GIT_COMMITTER_NAME", "a")
            .withEnv("GIT_COMMITTER_EMAIL", "a@example.com");
    inWork.run(null, "add", "a.txt", "b.txt");
    inWork.run(null, "commit", "--quiet", "-m", "one");
    return git.run("HEAD\n".getBytes(StandardCharsets.UTF_8), "pack-objects", "--revs", "--stdout");
  }

  private static byte[] sealed(byte[] body) {
    try {
      byte[] sum = MessageDigest.getInstance("SHA-1").digest(body);
      byte[] out = Arrays.copyOf(body, body.length + 20);
      System.arraycopy(sum, 0, out, body.length, 20);
      return out;
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
