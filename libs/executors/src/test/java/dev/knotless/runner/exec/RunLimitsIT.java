package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.mask.SecretMask;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a run may leave: its log's size, its outputs' number and size, their names masked. */
class RunLimitsIT {

  private static GitFixture repo;

  @BeforeAll
  static void makeMirror() throws Exception {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Files.createDirectories(tmp);
    repo = GitFixture.create(Files.createTempDirectory(tmp, "run-limits-it-"));
  }

  @AfterAll
  static void removeMirror() throws Exception {
    try (var all = Files.walk(repo.root)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private RunResult run(RunSpec spec) throws Exception {
    return new ShellExecutor(Files.createTempDirectory(repo.root, "work-"))
        .run(spec, new RunCancellation());
  }

  private RunSpec spec(ExecStep... steps) {
    return RunSpec.of(repo.mirror, repo.commit, List.of(steps));
  }

  private static ExecStep step(String name, String script) {
    return ExecStep.run(name, script, Duration.ZERO);
  }

  @Test
  void aStepThatPrintsWithoutEndLeavesALogOfItsHeadAndTailWithTheCutMarkedAndMasked()
      throws Exception {
    String secret = "tail-secret-value";
    RunSpec spec =
        spec(
                step("flood", "yes | head -c 300000000; echo; echo \"the last line says $SECRET\""),
                step("next", "echo next step ran"))
            .withEnv(Map.of("SECRET", secret))
            .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret))));
    long t0 = System.nanoTime();
    RunResult r = run(spec);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    String log = new String(r.log(), StandardCharsets.UTF_8);
    assertInstanceOf(
        RunOutcome.Passed.class, r.outcome(), log.substring(Math.max(0, log.length() - 500)));
    assertTrue(
        r.log().length <= RunLog.HEAD_BYTES + RunLog.TAIL_BYTES + 512,
        "the log is " + r.log().length + " bytes");
    int cut = log.indexOf("bytes of output cut here");
    assertTrue(cut > 0, "the cut is marked");
    assertTrue(log.startsWith("==> flood\ny\ny\n"), log.substring(0, 40));
    String after = log.substring(cut);
    assertTrue(
        after.contains("\nthe last line says ***\n==> next\nnext step ran\n"),
        after.substring(Math.max(0, after.length() - 300)));
    assertFalse(log.contains(secret));
    System.out.println("300 MB of output: the run took " + ms + " ms");
  }

  @Test
  void outputsAreKeptWithinTheirLimitsAndTheLogNamesEachLeftOut() throws Exception {
    String script =
        "cd \"$KNOTLESS_RUN_OUTPUTS\"\n"
            + "i=0; while [ $i -lt 20 ]; do printf x > $(printf 'n%02d.png' $i); i=$((i+1)); done\n"
            + "head -c 6000000 /dev/zero > big.png\n";
    RunResult result = run(spec(step("shoot", script)));
    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), result.logText());
    assertEquals(OutputFiles.MAX_FILES, result.outputs().size());
    assertEquals("n00.png", result.outputs().get(0).name());
    String log = result.logText();
    assertTrue(log.contains("output \"big.png\" left out: over 5 MiB"), log);
    assertTrue(log.contains("output \"n19.png\" left out: a run keeps at most 16 outputs"), log);
  }

  @Test
  void anOutputNamedWithASecretHasItsNameMasked() throws Exception {
    String secret = "named-secret-42";
    RunResult result =
        run(
            spec(step("shoot", "printf PNG > \"$KNOTLESS_RUN_OUTPUTS/$TOKEN.png\""))
                .withEnv(Map.of("TOKEN", secret))
                .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret)))));
    assertEquals(
        List.of("***.png"), result.outputs().stream().map(RunResult.OutputFile::name).toList());
  }
}
