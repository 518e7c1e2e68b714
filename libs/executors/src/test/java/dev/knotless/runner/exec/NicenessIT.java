package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A run's niceness reaches its steps and what they start, and nothing else changes. */
class NicenessIT {

  private static GitFixture repo;

  @BeforeAll
  static void makeMirror() throws Exception {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Files.createDirectories(tmp);
    repo = GitFixture.create(Files.createTempDirectory(tmp, "niceness-it-"));
  }

  @AfterAll
  static void removeMirror() throws IOException {
    try (Stream<Path> all = Files.walk(repo.root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static RunResult run(RunSpec spec) throws IOException {
    Path work = Files.createTempDirectory(repo.root, "work-");
    return new ShellExecutor(work).run(spec, new RunCancellation());
  }

  private static RunSpec niceSteps() {
    // `nice` with no arguments prints the niceness it runs at; the grandchild inherits it.
    return RunSpec.of(
        repo.mirror,
        repo.commit,
        List.of(
            ExecStep.run("shell", "echo \"shell at $(nice)\"", Duration.ZERO),
            ExecStep.run("child", "sh -c 'echo \"child at $(nice)\"'", Duration.ZERO)));
  }

  @Test
  void stepsOfANiceRunRunTenLowerAndSoDoTheirChildren() throws IOException {
    int own = baseNiceness();
    RunResult r = run(niceSteps().withNiceness(10));
    assertEquals("success", r.outcome().status(), r.logText());
    assertTrue(r.logText().contains("shell at " + (own + 10) + "\n"), r.logText());
    assertTrue(r.logText().contains("child at " + (own + 10) + "\n"), r.logText());
  }

  @Test
  void stepsRunAtTheRunnersOwnNicenessByDefault() throws IOException {
    RunResult r = run(niceSteps());
    assertEquals("success", r.outcome().status(), r.logText());
    assertTrue(r.logText().contains("shell at " + baseNiceness() + "\n"), r.logText());
  }

  @Test
  void aNicenessOutsideWhatNiceTakesIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> niceSteps().withNiceness(20));
    assertTrue(e.getMessage().contains("niceness must be 0 to 19, got 20"), e.getMessage());
  }

  /** The niceness this JVM runs at, which a step at niceness 0 shares. */
  private static int baseNiceness() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // Field 19 is the nice value; fields after the ")" that ends the command name.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(f[16]);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/self/stat", e);
    }
  }
}
