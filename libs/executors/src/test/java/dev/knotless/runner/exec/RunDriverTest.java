package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose directory cannot be made ends as an error before any step, and a follower (the live
 * output, the run events) learns of it as of any run: the log's line, each step's end, the end.
 */
class RunDriverTest {

  @Test
  void aRunWithoutADirectoryTellsItsFollowersEveryStepWasSkippedAndWhy(@TempDir Path tmp)
      throws Exception {
    Path notADirectory = Files.writeString(tmp.resolve("work"), "a file where --work should be");
    RunDriver driver = new RunDriver(notADirectory, Clock.systemUTC(), true);
    RunSpec spec =
        RunSpec.of(
            tmp,
            "a".repeat(40),
            List.of(
                ExecStep.run("build", "true", Duration.ofSeconds(5)),
                ExecStep.run("test", "true", Duration.ofSeconds(5))));
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<String> events = new ArrayList<>();
    RunListener follower =
        new RunListener() {
          @Override
          public void logWritten(long offset, byte[] bytes) {
            assertEquals(log.size(), offset);
            log.writeBytes(bytes);
          }

          @Override
          public void stepEnded(StepResult result, long logOffset) {
            assertEquals(log.size(), logOffset);
            events.add(result.name() + " " + result.status() + ": " + result.note());
          }

          @Override
          public void runEnded(RunResult result) {
            events.add("ended");
          }
        };

    RunResult result =
        driver.run(
            spec,
            new RunCancellation(),
            follower,
            AfterSteps.NONE,
            (s, paths) -> {
              throw new AssertionError("no step may start without the run's directory");
            });

    assertInstanceOf(RunOutcome.Errored.class, result.outcome());
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("could not make the run's directory under " + notADirectory), text);
    assertEquals(text, new String(result.log(), StandardCharsets.UTF_8));
    assertEquals(3, events.size(), events.toString());
    assertTrue(events.get(0).startsWith("build SKIPPED: not run: could not make"), events.get(0));
    assertTrue(events.get(1).startsWith("test SKIPPED: not run: could not make"), events.get(1));
    assertEquals("ended", events.get(2));
  }
}
