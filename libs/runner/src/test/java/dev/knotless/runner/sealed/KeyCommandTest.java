package dev.knotless.runner.sealed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.engine.KeyCommand;
import dev.knotless.runner.secrets.RunnerKeyFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    out.reset();
    err.reset();
    return KeyCommand.run(
        List.of(args),
        Map.of("HOME", "/nonexistent"),
        Clock.systemUTC(),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void initMakesTheKeyFileReadableByItsOwnerAloneOnceAndThenLeavesIt(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("secrets-key.json");
    assertEquals(0, run("init", "--secrets-key", file.toString()));
    String made = out();
    assertTrue(made.startsWith("did:key:zDn") && made.contains("published"), made);
    assertEquals(
        "rw-------",
        java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    String bytes = Files.readString(file);
    assertEquals(0, run("init", "--secrets-key", file.toString()));
    assertEquals(made, out());
    assertEquals(bytes, Files.readString(file));
  }

  @Test
  void rotateAndRetireWorkOnTheFileBesideTheStateAndPrintOnlyPublicKeys(@TempDir Path dir)
      throws Exception {
    Path state = dir.resolve("state.json");
    var keys = RunnerKeyFile.loadOrCreate(dir.resolve("secrets-key.json"), Instant.EPOCH);
    String first = keys.newest().didKey();
    String secret = Base64.getEncoder().encodeToString(keys.newest().privateKey());

    assertEquals(0, run("show", "--state", state.toString()));
    assertTrue(out().startsWith(first + "\t"), out());
    assertTrue(out().contains("published"));

    assertEquals(0, run("rotate", "--state", state.toString()));
    List<String> lines = out().lines().toList();
    assertEquals(2, lines.size(), out());
    assertTrue(lines.get(0).endsWith("\tpublished"));
    assertTrue(lines.get(1).startsWith(first + "\t"));
    assertFalse(out().contains(secret));

    assertEquals(0, run("retire", "--secrets-key", dir.resolve("secrets-key.json").toString()));
    assertEquals(1, out().lines().count());
    assertFalse(out().contains(first));
  }

  @Test
  void aMissingFileOrUnknownActionIsSaidAndNothingIsMade(@TempDir Path dir) {
    Path f = dir.resolve("none.json");
    assertEquals(1, run("show", "--secrets-key", f.toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains(f.toString()));
    assertFalse(Files.exists(f));
    assertEquals(2, run("spin", "--secrets-key", f.toString()));
    assertEquals(2, run());
    assertEquals(2, run("show", "--bogus"));
  }
}
