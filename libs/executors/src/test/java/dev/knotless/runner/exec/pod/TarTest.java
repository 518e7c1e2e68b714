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

  /** One ustar entry, as a hostile pod could write it. */
  static byte[] entry(String name, char type, String link, byte[] data) {
    byte[] h = new byte[512];
    byte[] n = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    System.arraycopy(n, 0, h, 0, n.length);
    byte[] mode = "0000755".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(mode, 0, h, 100, mode.length);
    byte[] size =
        String.format("%011o", data.length).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(size, 0, h, 124, size.length);
    h[156] = (byte) type;
    byte[] l = link.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    System.arraycopy(l, 0, h, 157, l.length);
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    o.writeBytes(h);
    o.writeBytes(data);
    o.writeBytes(new byte[(512 - data.length % 512) % 512]);
    return o.toByteArray();
  }

  /** The entries as one archive, with its end. */
  static ByteArrayInputStream archive(byte[]... entries) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    for (byte[] e : entries) {
      o.writeBytes(e);
    }
    o.writeBytes(new byte[1024]);
    return new ByteArrayInputStream(o.toByteArray());
  }

  @Test
  void aCheckoutComesBackWholeWithItsExecuteBitsAndLinksAsLinks() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Files.writeString(src.resolve("README"), "changed\n");
    Files.createDirectories(src.resolve("a/b"));
    Files.writeString(src.resolve("a/b/run.sh"), "echo hi\n");
    Files.setPosixFilePermissions(
        src.resolve("a/b/run.sh"),
        java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createSymbolicLink(src.resolve("passwd"), Path.of("/etc/passwd"));
    Path archive = tmp.resolve("w.tar");
    Tar.write(src, archive);
    Path out = Files.createDirectories(tmp.resolve("out"));
    Tar.extractTree(new ByteArrayInputStream(Files.readAllBytes(archive)), out, 1 << 20);

    assertEquals("changed\n", Files.readString(out.resolve("README")));
    assertEquals("echo hi\n", Files.readString(out.resolve("a/b/run.sh")));
    org.junit.jupiter.api.Assertions.assertTrue(Files.isExecutable(out.resolve("a/b/run.sh")));
    assertFalse(Files.isExecutable(out.resolve("README")));
    org.junit.jupiter.api.Assertions.assertTrue(Files.isSymbolicLink(out.resolve("passwd")));
    assertEquals(Path.of("/etc/passwd"), Files.readSymbolicLink(out.resolve("passwd")));
  }

  @Test
  void aPodsArchiveCannotWriteOutsideTheCheckoutNorIntoItsGitDirectory() throws IOException {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path out = Files.createDirectories(tmp.resolve("checkout"));
    Files.createDirectories(out.resolve(".git"));
    Files.writeString(out.resolve(".git/HEAD"), "runner's\n");
    byte[] x = "x".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    IOException up =
        org.junit.jupiter.api.Assertions.assertThrows(
            IOException.class,
            () -> Tar.extractTree(archive(entry("../outside/up", '0', "", x)), out, 1 << 20));
    assertEquals("the pod's checkout holds a name leaving it: \"../outside/up\"", up.getMessage());
    IOException abs =
        org.junit.jupiter.api.Assertions.assertThrows(
            IOException.class,
            () -> Tar.extractTree(archive(entry(outside + "/abs", '0', "", x)), out, 1 << 20));
    org.junit.jupiter.api.Assertions.assertTrue(
        abs.getMessage().startsWith("the pod's checkout holds an absolute name"), abs.getMessage());
    IOException through =
        org.junit.jupiter.api.Assertions.assertThrows(
            IOException.class,
            () ->
                Tar.extractTree(
                    archive(
                        entry("escape", '2', outside.toString(), new byte[0]),
                        entry("escape/through", '0', "", x)),
                    out,
                    1 << 20));
    assertEquals(
        "the pod's checkout writes through a link: \"escape/through\"", through.getMessage());
    Tar.extractTree(archive(entry("./.git/HEAD", '0', "", x)), out, 1 << 20);
    IOException big =
        org.junit.jupiter.api.Assertions.assertThrows(
            IOException.class,
            () -> Tar.extractTree(archive(entry("big", '0', "", new byte[2000])), out, 1000));
    assertEquals("the pod's checkout is over 1000 bytes at \"big\"", big.getMessage());

    try (Stream<Path> files = Files.list(outside)) {
      assertEquals(List.of(), files.toList(), "something was written outside the checkout");
    }
    assertEquals("runner's\n", Files.readString(out.resolve(".git/HEAD")));
  }
}
