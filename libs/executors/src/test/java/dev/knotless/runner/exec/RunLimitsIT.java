package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

/**
 * What a run may leave: its log's size, which files count as outputs, their number and size, their
 * names masked.
 */
class RunLimitsIT {

  private static GitFixture repo;

  @BeforeAll
  static void makeMirror() throws Exception {
    repo = GitFixture.createTemp("run-limits-it-");
  }

  @AfterAll
  static void removeMirror() throws Exception {
    repo.delete();
  }

  private RunResult run(RunSpec spec) throws Exception {
    return new ShellExecutor(Files.createTempDirectory(repo.root, "work-"))
        .run(spec, new RunCancellation());
  }

  private RunSpec spec(ExecStep... steps) {
    return repo.spec(steps);
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

  @Test
  void imagesLeftInOutputsComeBackButNeitherOtherFilesNorALink() throws Exception {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2};
    Path source = Files.createTempDirectory(repo.root, "scratch-").resolve("shot.png");
    Files.write(source, png);
    RunResult result =
        run(
            spec(
                step(
                    "shoot",
                    "cp "
                        + source
                        + " \"$KNOTLESS_RUN_OUTPUTS/shot.png\"\n"
                        + "mkdir \"$KNOTLESS_RUN_OUTPUTS/pages\"\n"
                        + "echo home > \"$KNOTLESS_RUN_OUTPUTS/pages/home.txt\"\n"
                        + "ln -s /etc/passwd \"$KNOTLESS_RUN_OUTPUTS/passwd\"")));

    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), result.logText());
    assertEquals(
        List.of("shot.png"), result.outputs().stream().map(RunResult.OutputFile::name).toList());
    assertArrayEquals(png, result.outputs().get(0).bytes());
  }

  @Test
  void anOutputHoldingASecretOrNotNamedPlainlyIsNotFiledAndTheLogSaysWhichAndWhy()
      throws Exception {
    String secret = "s3cr3t-output-t0ken/42";
    String png = "printf '\\211PNG\\r\\n\\032\\n'";
    String out = " \"$KNOTLESS_RUN_OUTPUTS/";
    RunSpec spec =
        spec(step(
                "shoot",
                png
                    + " >"
                    + out
                    + "clean.png\"\n"
                    + "{ "
                    + png
                    + "; printf '%s' \"$SECRET_TOKEN\"; } >"
                    + out
                    + "leak.png\"\n"
                    + "printf 'x=%s' \"$SECRET_TOKEN\" | sed 's,/,%2f,' >"
                    + out
                    + "encoded.svg\"\n"
                    + png
                    + " >"
                    + out
                    + "$(printf 'bad\\nname.png')\"\n"
                    + png
                    + " >"
                    + out
                    + "$(printf 'esc\\033[2J.png')\"\n"
                    + "mkdir"
                    + out
                    + "sub\"; "
                    + png
                    + " >"
                    + out
                    + "sub/deep.png\"\n"))
            .withEnv(Map.of("SECRET_TOKEN", secret))
            .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret))));
    RunResult result = run(spec);

    String log = result.logText();
    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), log);
    assertEquals(
        List.of("clean.png"), result.outputs().stream().map(RunResult.OutputFile::name).toList());
    assertTrue(log.contains("output \"leak.png\" held back: it holds a secret\n"), log);
    assertTrue(log.contains("output \"encoded.svg\" held back: it holds a secret\n"), log);
    assertTrue(log.contains("output \"bad\\nname.png\" refused: not a plain file name\n"), log);
    assertTrue(log.contains("output \"esc\\u001b[2J.png\" refused: not a plain file name\n"), log);
    assertTrue(log.contains("output \"sub/deep.png\" refused: not a plain file name\n"), log);
    assertFalse(log.contains(secret), log);
    assertFalse(log.contains("\033"), "a control character in a name reached the log");
  }
}
