package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.Floods;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.mask.SecretMask;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The daemon reads a step's stdout and stderr apart and cuts each into frames wherever a read
 * ended; what two streams print in blocks at once must still reach the log whole, under runc (the
 * daemon's default) and under gVisor.
 */
class DockerOutputIT extends WithDocker {

  @EachRuntime
  void twoStreamsWritingBlocksAtOnceKeepEveryLineWholeAndInOrder(String runtime) throws Exception {
    int count = 200_000;
    try (DockerExecutor executor = f.executor(f.settings(runtime))) {
      RunResult r =
          executor.run(
              f.spec(
                  step(
                      "flood",
                      "("
                          + Floods.seqLines("out", count)
                          + ") & ("
                          + Floods.seqLines("err", count)
                          + ") >&2; wait"),
                  step("next", "true")),
              new RunCancellation());

      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), r.steps().toString());
      Floods.checkTwoStreamFlood(r.log(), count, "flood", "next");
    }
  }

  @EachRuntime
  void aSecretPrinted100000TimesOnBothStreamsAtOnceLeavesNoPieceInTheLog(String runtime)
      throws Exception {
    String secret = "flood-secret-Zq7xW3vK9pL2mN8r";
    try (DockerExecutor executor = f.executor(f.settings(runtime))) {
      RunResult r =
          executor.run(
              f.spec(
                      step(
                          "leak",
                          "(yes \"token=$TOKEN\" | head -n 100000) &"
                              + " (yes \"$TOKEN\" | head -n 100000) >&2; wait"),
                      step("next", "true"))
                  .withEnv(Map.of("TOKEN", secret))
                  .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret)))),
              new RunCancellation());

      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), r.steps().toString());
      String text = new String(r.log(), StandardCharsets.UTF_8);
      Floods.checkNoPieceOf(secret, text);
      assertTrue(text.contains("token=***\n"), "the masked line is there");
    }
  }
}
