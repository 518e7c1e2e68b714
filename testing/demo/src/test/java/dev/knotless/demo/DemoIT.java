package dev.knotless.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.LocalDocker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/demo}, the first command README.md gives a newcomer, run as they run it: its exit
 * code, and the check it prints, filed by a real knotless-run for the sample's second push.
 */
class DemoIT {

  private static final Path ROOT =
      Path.of(System.getProperty("knotless.repo.root", ".")).toAbsolutePath().normalize();

  @Test
  void theDemoFilesASuccessfulCheckForTheSecondPushAndShowsItsLog() throws Exception {
    // What bin/demo would otherwise build with a Maven of its own: packaged by this build already.
    for (String built :
        List.of(
            "services/all-in-one/target/quarkus-app/quarkus-run.jar",
            "testing/demo/target/classpath.txt",
            "libs/knotless/target/lib",
            "tools/knotless-cli/target/lib")) {
      assertTrue(Files.exists(ROOT.resolve(built)), built + " is packaged before the demo runs");
    }
    LocalDocker.ensure();
    Path out = Files.createTempFile("demo-", ".out");
    Process demo =
        new ProcessBuilder(ROOT.resolve("bin/demo").toString())
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    boolean ended = demo.waitFor(8, TimeUnit.MINUTES);
    if (!ended) {
      demo.destroy();
      demo.waitFor(30, TimeUnit.SECONDS);
    }
    String printed = Files.readString(out, StandardCharsets.UTF_8);
    assertTrue(ended, "bin/demo ended within 8 minutes:\n" + printed);
    assertEquals(0, demo.exitValue(), "bin/demo's exit code:\n" + printed);

    assertTrue(
        printed.contains("==> a docker daemon answers: using the docker executor"),
        "the demo used the docker daemon that answers here:\n" + printed);
    Matcher pushed =
        Pattern.compile("==> git push \\(second commit ([0-9a-f]{12})\\)").matcher(printed);
    assertTrue(pushed.find(), "the demo pushed a second commit:\n" + printed);
    String sha = pushed.group(1);
    // The check is followed from queued to success, then printed with its log.
    int queued = printed.indexOf("==> check ci @ " + sha + ": queued");
    int success = printed.indexOf("==> check ci @ " + sha + ": success");
    assertTrue(queued >= 0 && success > queued, "queued, then success:\n" + printed);
    int log = printed.indexOf("---- log ----", success);
    assertTrue(log > success, "the check's log is printed:\n" + printed);
    String shown = printed.substring(log);
    assertTrue(
        Pattern.compile("hello from \\S+/sample at " + sha + "[0-9a-f]{28}\n")
            .matcher(shown)
            .find(),
        "the greet step's line names the pushed commit:\n" + shown);
    assertTrue(shown.contains("running the tests\nok\n"), "the test step's lines:\n" + shown);
    assertTrue(printed.contains("\"status\" : \"success\""), "the filed record:\n" + printed);
    assertTrue(printed.contains("==> stopping knotless-run"), printed);
    Files.deleteIfExists(out);
  }
}
