package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkout's archive as GNU tar (and busybox's, in the pod ITs) unpacks it. */
class TarIT {

  @TempDir Path tmp;

  @Test
  void aTreeWithLongNamesLinksAndExecutablesUnpacksAsItWasWithTar() throws Exception {
    Path src = Files.createDirectories(tmp.resolve("src"));
    String deep = "d/" + "n".repeat(120) + "/" + "f".repeat(110);
    Files.createDirectories(src.resolve(deep).getParent());
    Files.writeString(src.resolve(deep), "deep\n");
    Files.writeString(src.resolve("run.sh"), "#!/bin/sh\n");
    src.resolve("run.sh").toFile().setExecutable(true);
    Files.createSymbolicLink(src.resolve("link"), Path.of("run.sh"));
    Files.write(src.resolve("big"), new byte[70_000]);
    Path archive = tmp.resolve("a.tar");
    Tar.write(src, archive);
    Path out = Files.createDirectories(tmp.resolve("out"));
    Process p =
        new ProcessBuilder("tar", "-xf", archive.toString(), "-C", out.toString())
            .redirectErrorStream(true)
            .start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(1, TimeUnit.MINUTES));
    assertEquals(0, p.exitValue(), said);

    assertEquals("deep\n", Files.readString(out.resolve(deep)));
    assertTrue(Files.isExecutable(out.resolve("run.sh")));
    assertEquals(Path.of("run.sh"), Files.readSymbolicLink(out.resolve("link")));
    assertEquals(70_000, Files.size(out.resolve("big")));
  }
}
