package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TarTest {

  @TempDir Path tmp;

  @Test
  void onlyTopLevelRegularFilesWithinTheLimitComeBackFromAnArchive() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Files.writeString(src.resolve("shot.png"), "PNG");
    Files.write(src.resolve("huge.png"), new byte[2000]);
    Files.createDirectories(src.resolve("sub"));
    Files.writeString(src.resolve("sub/inner.png"), "no");
    Files.createSymbolicLink(src.resolve("link.png"), Path.of("/etc/passwd"));
    Path archive = tmp.resolve("o.tar");
    Tar.write(src, archive);
    Path out = Files.createDirectories(tmp.resolve("out"));
    Tar.extractTopFiles(new ByteArrayInputStream(Files.readAllBytes(archive)), out, 1000);

    try (Stream<Path> files = Files.list(out)) {
      assertEquals(
          List.of("shot.png"), files.map(f -> f.getFileName().toString()).sorted().toList());
    }
    assertEquals("PNG", Files.readString(out.resolve("shot.png")));
    assertFalse(Files.exists(out.resolve("sub")));
  }

  @Test
  void anArchiveCutOffInAFileIsAnError() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Files.write(src.resolve("a.png"), new byte[5000]);
    Path archive = tmp.resolve("c.tar");
    Tar.write(src, archive);
    byte[] whole = Files.readAllBytes(archive);
    ByteArrayOutputStream cut = new ByteArrayOutputStream();
    cut.write(whole, 0, 2048);
    Path out = Files.createDirectories(tmp.resolve("out"));
    org.junit.jupiter.api.Assertions.assertThrows(
        IOException.class,
        () -> Tar.extractTopFiles(new ByteArrayInputStream(cut.toByteArray()), out, 10_000));
  }
}
