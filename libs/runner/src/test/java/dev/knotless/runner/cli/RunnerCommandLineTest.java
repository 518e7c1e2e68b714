package dev.knotless.runner.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunnerCommandLineTest {
  private static final Map<String, String> ENV = Map.of("HOME", "/home/op");

  private static RunnerCommandLine.Invocation parse(String... args) throws Exception {
    return RunnerCommandLine.parse(List.of(args), ENV);
  }

  private static RunnerOptions run(String... args) throws Exception {
    return assertInstanceOf(RunnerCommandLine.Run.class, parse(args)).options();
  }

  @Test
  void aFlagTakesItsValueAfterAnEqualsSignAsWellAsAfterASpace() throws Exception {
    RunnerOptions spaced =
        run("--jobs", "3", "--state", "/s.json", "--trust", "did:plc:a", "a.test/r");
    RunnerOptions equals = run("--jobs=3", "--state=/s.json", "--trust=did:plc:a", "a.test/r");
    assertEquals(spaced, equals);
    assertEquals(3, equals.jobs());
    assertEquals(Path.of("/s.json"), equals.state());
    assertEquals(Duration.ofSeconds(5), run("--sweep=5", "a.test/r").sweep());
  }

  @Test
  void repeatedFlagsAddUpAndTheLastOfASingleOneWins() throws Exception {
    RunnerOptions o =
        assertInstanceOf(
                RunnerCommandLine.Run.class,
                RunnerCommandLine.parse(
                    List.of(
                        "--unmetered",
                        "did:plc:a",
                        "--jobs",
                        "2",
                        "--unmetered=did:plc:b",
                        "--jobs",
                        "5",
                        "--pulls",
                        "--pulls",
                        "a.test/r",
                        "b.test/s"),
                    Map.of("HOME", "/home/op", "KNOTLESS_APPVIEW", "https://appview.example")))
            .options();
    assertTrue(o.pulls());
    assertEquals(java.util.Set.of("did:plc:a", "did:plc:b"), o.unmetered());
    assertEquals(5, o.jobs());
    assertEquals(List.of("a.test/r", "b.test/s"), o.repos());
  }

  @Test
  void doubleDashEndsTheFlags() throws Exception {
    RunnerOptions o = run("--jobs", "2", "--", "a.test/r");
    assertEquals(List.of("a.test/r"), o.repos());
    RunnerOptions.UsageException e =
        assertThrows(RunnerOptions.UsageException.class, () -> parse("--", "--jobs"));
    assertTrue(e.getMessage().contains("repository --jobs"), e.getMessage());
  }

  @Test
  void helpAndVersionAreAnsweredWithoutARepository() throws Exception {
    assertInstanceOf(RunnerCommandLine.Help.class, parse("--help"));
    assertInstanceOf(RunnerCommandLine.Help.class, parse("-h", "--jobs", "0"));
    RunnerCommandLine.Version v =
        assertInstanceOf(RunnerCommandLine.Version.class, parse("--version"));
    assertTrue(v.text().matches("knotless-run \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), v.text());
    assertTrue(RunnerOptions.HELP.contains("--version"));
  }

  @Test
  void aBadCommandLineNamesTheFlag() {
    List<String[]> bad = new ArrayList<>();
    bad.add(new String[] {"--frobnicate=1", "a.test/r"});
    bad.add(new String[] {"a.test/r", "--state"});
    bad.add(new String[] {"--jobs=", "a.test/r"});
    bad.add(new String[] {"@args.txt"});
    List<String> expected =
        List.of(
            "unknown flag --frobnicate",
            "--state needs a value",
            "--jobs : expected a whole number",
            "repository @args.txt");
    for (int i = 0; i < bad.size(); i++) {
      String[] args = bad.get(i);
      RunnerOptions.UsageException e =
          assertThrows(RunnerOptions.UsageException.class, () -> parse(args));
      assertTrue(e.getMessage().contains(expected.get(i)), e.getMessage());
    }
  }
}
