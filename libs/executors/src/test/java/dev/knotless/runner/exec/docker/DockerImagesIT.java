package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a run's check says when its image is a bad name or cannot be pulled. */
class DockerImagesIT extends WithDocker {

  @Test
  void aFailedPullsNoteCarriesTheDaemonsWholeErrorOnOneLine() throws Exception {
    try (DockerExecutor executor = f.executor(f.settings())) {
      // No registry answers here: the daemon's own error, quoting the URL it tried, comes back.
      RunResult r =
          executor.run(
              f.spec(step("a", "true"))
                  .withOption(
                      new dev.knotless.runner.exec.ContainerImage("registry.invalid/none:1")),
              new RunCancellation());
      RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome());
      String note = r.steps().get(0).note();
      assertTrue(
          e.message()
              .startsWith("could not pull image \"registry.invalid/none:1\": Get \"https://"),
          e.message());
      assertTrue(e.message().contains("registry.invalid/v2/\": "), e.message());
      assertTrue(e.message().length() > 60, "cut short: " + e.message());
      assertFalse(e.message().contains("\n"), e.message());
      assertTrue(note.startsWith("not run: ") && note.contains(e.message()), note);
    }
  }

  @Test
  void aBadImageNameIsRefusedNamingItBeforeTheDaemonIsAsked() throws Exception {
    String nowhere = "unix://" + f.work.resolve("no-daemon.sock");
    for (String host : List.of(DockerSettings.DEFAULT_HOST, nowhere)) {
      try (DockerExecutor executor = f.executor(f.settings().withDockerHost(host))) {
        RunResult r =
            executor.run(
                f.spec(step("a", "true"))
                    .withOption(new dev.knotless.runner.exec.ContainerImage("x$(id);y")),
                new RunCancellation());
        RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
        assertEquals(
            "image \"x$(id);y\" holds '$', '(', ')' and ';', which no image name may",
            e.message(),
            "with the daemon at " + host);
      }
    }
  }
}
