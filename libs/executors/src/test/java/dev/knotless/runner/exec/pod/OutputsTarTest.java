package dev.knotless.runner.exec.pod;

import static dev.knotless.runner.exec.pod.TarTest.archive;
import static dev.knotless.runner.exec.pod.TarTest.entry;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.OutputFiles;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputsTarTest {

  @TempDir Path tmp;

  private static final byte[] ALL_BYTES = new byte[256];

  static {
    for (int i = 0; i < 256; i++) {
      ALL_BYTES[i] = (byte) i;
    }
  }

  @Test
  void theOutputsDirectoryComesBackAsTheStepsLeftItAtEveryDepthAndByteForByte() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Files.write(src.resolve("bytes.png"), ALL_BYTES);
    Files.writeString(src.resolve("notes.txt"), "not an image\n");
    Files.createDirectories(src.resolve("sub/deeper"));
    Files.writeString(src.resolve("sub/deeper/deep.png"), "deep");
    Files.writeString(src.resolve("bad\nname.png"), "odd");
    Files.createSymbolicLink(src.resolve("link.png"), Path.of("/etc/passwd"));

    Path out = extract(src);

    assertEquals(
        List.of("bad\nname.png", "bytes.png", "notes.txt", "sub/deeper/deep.png"), files(out));
    assertArrayEquals(ALL_BYTES, Files.readAllBytes(out.resolve("bytes.png")));
    assertEquals("deep", Files.readString(out.resolve("sub/deeper/deep.png")));
    assertEquals("odd", Files.readString(out.resolve("bad\nname.png")));
  }

  @Test
  void aFileTooLargeToBeReadComesBackAsItsSizeAlone() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    long size = OutputFiles.MAX_FILE_BYTES + 1;
    try (RandomAccessFile f = new RandomAccessFile(src.resolve("big.png").toFile(), "rw")) {
      f.setLength(size);
    }
    Files.writeString(src.resolve("small.png"), "small");

    Path out = extract(src);

    assertEquals(size, Files.size(out.resolve("big.png")));
    assertEquals("small", Files.readString(out.resolve("small.png")));
  }

  @Test
  void aHardLinkComesBackAsACopyOfTheFileItNames() throws IOException {
    Path out = Files.createDirectories(tmp.resolve("out"));
    OutputsTar.extract(
        archive(
            entry("./data.bin", '0', "", ALL_BYTES),
            entry("./shot.png", '1', "./data.bin", new byte[0])),
        out,
        1 << 20);

    assertArrayEquals(ALL_BYTES, Files.readAllBytes(out.resolve("shot.png")));
    assertTrue(Files.isRegularFile(out.resolve("shot.png"), LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void aSizeWrittenInBaseTwoFiftySixIsRead() throws IOException {
    byte[] e = entry("./b.png", '0', "", ALL_BYTES);
    // GNU tar's form for sizes of 8 GiB and up, here for 256 bytes: high bit, then big-endian.
    for (int i = 124; i < 136; i++) {
      e[i] = 0;
    }
    e[124] = (byte) 0x80;
    e[134] = 1;
    int sum = 0;
    for (int i = 0; i < 512; i++) {
      sum += (i >= 148 && i < 156) ? ' ' : e[i] & 0xff;
    }
    byte[] chk = String.format("%06o\0 ", sum).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(chk, 0, e, 148, 8);
    Path out = Files.createDirectories(tmp.resolve("out"));
    OutputsTar.extract(archive(e), out, 1 << 20);

    assertArrayEquals(ALL_BYTES, Files.readAllBytes(out.resolve("b.png")));
  }

  @Test
  void aPodsArchiveCannotWriteOutsideTheOutputsNorPastTheCopysLimit() throws IOException {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path out = Files.createDirectories(tmp.resolve("out"));
    byte[] x = "x".getBytes(StandardCharsets.UTF_8);

    IOException up =
        assertThrows(
            IOException.class,
            () -> OutputsTar.extract(archive(entry("../outside/up.png", '0', "", x)), out, 100));
    assertEquals(
        "the pod's outputs directory holds a name leaving it: \"../outside/up.png\"",
        up.getMessage());
    assertThrows(
        IOException.class,
        () -> OutputsTar.extract(archive(entry(outside + "/abs.png", '0', "", x)), out, 100));
    assertThrows(
        IOException.class,
        () ->
            OutputsTar.extract(
                archive(entry("other.png", '1', "../outside/secret", new byte[0])), out, 100));
    // A link is passed over, so a name under it is a directory of the runner's own.
    OutputsTar.extract(
        archive(
            entry("escape", '2', outside.toString(), new byte[0]),
            entry("escape/through.png", '0', "", x)),
        out,
        100);
    assertTrue(Files.isRegularFile(out.resolve("escape/through.png"), LinkOption.NOFOLLOW_LINKS));
    IOException big =
        assertThrows(
            IOException.class,
            () ->
                OutputsTar.extract(
                    archive(entry("a.png", '0', "", new byte[60]), entry("b.png", '0', "", x)),
                    out,
                    60));
    assertEquals("the pod's outputs are over 60 bytes at \"b.png\"", big.getMessage());

    try (Stream<Path> files = Files.list(outside)) {
      assertEquals(List.of(), files.toList(), "something was written outside the outputs");
    }
  }

  @Test
  void anArchiveCutOffInAFileIsAnError() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Files.write(src.resolve("a.png"), new byte[5000]);
    Path archive = tmp.resolve("c.tar");
    Tar.write(src, archive);
    ByteArrayOutputStream cut = new ByteArrayOutputStream();
    cut.write(Files.readAllBytes(archive), 0, 2048);
    Path out = Files.createDirectories(tmp.resolve("out"));

    assertThrows(
        IOException.class,
        () -> OutputsTar.extract(new ByteArrayInputStream(cut.toByteArray()), out, 10_000));
  }

  private Path extract(Path src) throws IOException {
    Path archive = tmp.resolve("o.tar");
    Tar.write(src, archive);
    Path out = Files.createDirectories(tmp.resolve("out"));
    try (var in = Files.newInputStream(archive)) {
      OutputsTar.extract(in, out, 1 << 20);
    }
    return out;
  }

  private static List<String> files(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .map(p -> dir.relativize(p).toString())
          .sorted()
          .toList();
    }
  }
}
