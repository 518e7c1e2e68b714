package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/local-distributed.sh --exit}, run as a newcomer runs it: the services from their
 * packaged jars, the reconciler queueing, the scheduler running the job as a pod that the test
 * kubelet runs as a container. It ends with a success check whose log names the pod, under the
 * gVisor runtime class, and every process it started is gone when it exits.
 */
class LocalTourIT {
  private static final Pattern POD_LINE =
      Pattern.compile("^pod (\\S+) from \\S+, runtime class gvisor$", Pattern.MULTILINE);

  @Test
  void theTourEndsWithASuccessCheckWhoseLogNamesItsPod(@TempDir Path tmp) throws Exception {
    Path root = LocalDistributed.projectRoot();
    Path out = tmp.resolve("tour.out");
    ProcessBuilder builder =
        new ProcessBuilder(root.resolve("deploy/local-distributed.sh").toString(), "--exit");
    // Its own directory: a tour someone runs from this clone meanwhile keeps its own.
    builder.environment().put("KNOTLESS_TOUR_DIR", tmp.resolve("tour").toString());
    Process tour =
        builder
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    boolean ended = tour.waitFor(6, TimeUnit.MINUTES);
    if (!ended) {
      tour.descendants().forEach(ProcessHandle::destroy);
      tour.destroy();
    }
    String printed = Files.readString(out, StandardCharsets.UTF_8);
    assertTrue(ended, "the tour did not end in six minutes:\n" + printed);
    assertEquals(0, tour.exitValue(), printed);
    assertTrue(printed.contains(": success\n"), "the check it prints succeeded:\n" + printed);
    Matcher pod = POD_LINE.matcher(printed);
    assertTrue(pod.find(), "the check's log names its pod:\n" + printed);
    assertTrue(
        printed.contains("==> ran in pod " + pod.group(1) + " from "),
        "the tour says which pod ran the job:\n" + printed);
    assertTrue(printed.contains("RuntimeClass gvisor maps to the daemon's"), printed);
    assertTrue(
        tour.descendants().findAny().isEmpty(), "the tour left a process of its own running");
  }
}
