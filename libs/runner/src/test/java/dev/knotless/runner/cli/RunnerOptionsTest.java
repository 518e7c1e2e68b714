package dev.knotless.runner.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunnerOptionsTest {

  private static RunnerOptions parse(String... args) throws Exception {
    return RunnerOptions.parse(List.of(args), Map.of("HOME", "/home/op")).orElseThrow();
  }

  @Test
  void defaultsAreTheDocumentedOnes() throws Exception {
    RunnerOptions o = parse("alice.test/site");
    assertEquals(List.of("alice.test/site"), o.repos());
    assertEquals(4, o.jobs());
    assertEquals(2, o.pullJobs());
    assertEquals(Duration.ofSeconds(1800), o.stepTimeout());
    assertNull(o.runTimeout());
    assertEquals(Duration.ofSeconds(600), o.sweep());
    assertEquals(Duration.ofSeconds(900), o.stopWait());
    assertEquals("shell", o.executor());
    assertEquals(30, o.keepChecks());
    assertEquals(RunnerOptions.DEFAULT_JETSTREAM, o.jetstream());
    assertEquals(Path.of("/home/op/.local/state/knotless-run/state.json"), o.state());
  }

  @Test
  void flagsOverrideTheDefaults() throws Exception {
    RunnerOptions o =
        parse(
            "--jobs",
            "8",
            "--step-timeout",
            "60",
            "--run-timeout",
            "300",
            "--sweep",
            "30",
            "--stop-wait",
            "0",
            "--firehose",
            "ws://127.0.0.1:2583",
            "--state",
            "/s.json",
            "did:plc:abc/site",
            "bob.test/x");
    assertEquals(8, o.jobs());
    assertEquals(4, o.pullJobs());
    assertEquals(Duration.ofSeconds(300), o.runTimeout());
    assertEquals(Duration.ZERO, o.stopWait());
    assertEquals("ws://127.0.0.1:2583", o.firehose().toString());
    assertEquals(List.of("did:plc:abc/site", "bob.test/x"), o.repos());
  }

  @Test
  void helpIsAskedForAndDocumentsEveryFlagAndVariable() throws Exception {
    assertTrue(RunnerOptions.parse(List.of("--help"), Map.of()).isEmpty());
    for (String flag :
        List.of(
            "--state",
            "--work",
            "--jobs",
            "--step-timeout",
            "--run-timeout",
            "--sweep",
            "--stop-wait",
            "--executor",
            "--jetstream",
            "--firehose",
            "--secrets",
            "KNOTLESS_IDENTIFIER",
            "KNOTLESS_PASSWORD",
            "--state-db",
            "KNOTLESS_STATE_DB_USER",
            "KNOTLESS_STATE_DB_PASSWORD")) {
      assertTrue(RunnerOptions.HELP.contains(flag), flag);
    }
  }

  @Test
  void badCommandLinesAreRefusedNamingWhatIsWrong() {
    assertTrue(message("--jobs", "0", "a.test/r").contains("--jobs 0"));
    assertTrue(message("--jobs", "many", "a.test/r").contains("--jobs many"));
    assertTrue(message("--executor", "docker", "a.test/r").contains("shell executor only"));
    assertTrue(message("--frobnicate", "a.test/r").contains("unknown flag --frobnicate"));
    assertTrue(message("just-a-name").contains("<handle or did>/<name>"));
    assertTrue(message().contains("at least one repository"));
    assertTrue(message("--state").contains("--state needs a value"));
  }

  @Test
  void stateDbKeepsTheStateInADatabaseInsteadOfTheFile() throws Exception {
    RunnerOptions o =
        parse("--state-db", "jdbc:postgresql://db.example.com:5432/knotless", "a.t/r");
    assertEquals("jdbc:postgresql://db.example.com:5432/knotless", o.stateDb());
    assertNull(o.state());
    assertNull(parse("a.t/r").stateDb());
  }

  @Test
  void stateDbIsRefusedWithoutAPostgresUrlBesideStateOrWithAPasswordInIt() {
    assertTrue(
        message("--state-db", "postgres://db/k", "a.t/r")
            .contains("--state-db postgres://db/k: expected a PostgreSQL JDBC URL"));
    assertTrue(
        message("--state-db", "jdbc:postgresql:///k", "a.t/r").contains("expected a PostgreSQL"));
    assertTrue(
        message("--state", "/s.json", "--state-db", "jdbc:postgresql://db/k", "a.t/r")
            .contains("--state and --state-db"));
    for (String url :
        List.of(
            "jdbc:postgresql://db/k?user=u&password=hunter2", "jdbc:postgresql://u:hunter2@db/k")) {
      String m = message("--state-db", url, "a.t/r");
      assertTrue(m.startsWith("--state-db: ") && m.contains("KNOTLESS_STATE_DB_PASSWORD"), m);
      assertFalse(m.contains("hunter2"), m);
    }
  }

  private static String message(String... args) {
    return assertThrows(
            RunnerOptions.UsageException.class,
            () -> RunnerOptions.parse(List.of(args), Map.of("HOME", "/h")))
        .getMessage();
  }
}
