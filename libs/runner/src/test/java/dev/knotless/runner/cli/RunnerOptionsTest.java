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
    assertEquals(Duration.ofSeconds(10), o.poll());
    assertEquals(Duration.ofSeconds(900), o.stopWait());
    assertEquals("docker", o.executor().name());
    assertEquals("debian:bookworm-slim", docker(o).image());
    assertEquals("unix:///var/run/docker.sock", docker(o).dockerHost());
    assertEquals(0, docker(o).memoryGiB());
    assertNull(docker(o).network());
    assertNull(docker(o).runtime());
    assertEquals(30, o.keepChecks());
    assertEquals(RunnerOptions.DEFAULT_JETSTREAM, o.jetstream());
    assertEquals(Path.of("/home/op/.local/state/knotless-run/state.json"), o.state());
  }

  @Test
  void privateRepositoriesSpacesArePolledEveryPollSeconds() throws Exception {
    assertEquals(Duration.ofSeconds(3), parse("--poll", "3", "alice.test/site").poll());
    assertThrows(RunnerOptions.UsageException.class, () -> parse("--poll", "0", "alice.test/site"));
  }

  @Test
  void logJsonIsASwitchOffByDefault() throws Exception {
    assertEquals(false, parse("alice.test/site").logJson());
    assertEquals(true, parse("--log-json", "alice.test/site").logJson());
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
            "--poll",
            "--stop-wait",
            "--executor",
            "--image",
            "--cpus",
            "--memory",
            "--pids",
            "--network",
            "--runtime",
            "--trusted-runtime",
            "--resolv",
            "--cache-dir",
            "--cache-max",
            "--disk-floor",
            "--trust",
            "DOCKER_HOST",
            "--jetstream",
            "--firehose",
            "--secrets",
            "KNOTLESS_IDENTIFIER",
            "KNOTLESS_PASSWORD",
            "--state-db",
            "KNOTLESS_STATE_DB_USER",
            "KNOTLESS_STATE_DB_PASSWORD",
            "--pulls",
            "--pulls-only",
            "--queue",
            "--batch",
            "--depth",
            "--notice",
            "--log-json",
            "KNOTLESS_APPVIEW")) {
      assertTrue(RunnerOptions.HELP.contains(flag), flag);
    }
  }

  @Test
  void helpSaysARunsRuntimeIsTheDaemonsOwnUnlessNamed() throws Exception {
    String help = RunnerOptions.HELP;
    String runtime = help.substring(help.indexOf("--runtime <name>"), help.indexOf("--resolv"));
    assertTrue(runtime.contains("the docker daemon's default runtime"), runtime);
    assertFalse(runtime.contains("runsc (default)"), runtime);
    assertNull(
        docker(parse("alice.test/site")).runtimeFor(false),
        "no --runtime leaves the daemon's default");
  }

  @Test
  void pullsAreCheckedOnlyInContainersAndWithAnAppviewToListThem() throws Exception {
    Map<String, String> env = Map.of("HOME", "/h", "KNOTLESS_APPVIEW", "http://127.0.0.1:9/");
    RunnerOptions.UsageException shell =
        org.junit.jupiter.api.Assertions.assertThrows(
            RunnerOptions.UsageException.class,
            () -> RunnerOptions.parse(List.of("--pulls", "--executor", "shell", "a.t/r"), env));
    assertTrue(shell.getMessage().contains("--pulls refuses --executor shell"), shell.getMessage());
    assertTrue(shell.getMessage().contains("secrets file"), shell.getMessage());
    assertTrue(
        org.junit.jupiter.api.Assertions.assertThrows(
                RunnerOptions.UsageException.class,
                () -> RunnerOptions.parse(List.of("--pulls-only", "a.t/r"), Map.of("HOME", "/h")))
            .getMessage()
            .contains("--pulls-only needs KNOTLESS_APPVIEW"));

    RunnerOptions o = RunnerOptions.parse(List.of("--pulls-only", "a.t/r"), env).orElseThrow();
    assertTrue(o.pulls() && o.pullsOnly());
    assertEquals("http://127.0.0.1:9/", o.appview().toString());
    RunnerOptions plain = parse("a.t/r");
    assertTrue(!plain.pulls() && !plain.pullsOnly() && plain.appview() == null);
  }

  @Test
  void theQueueIsLandedOnlyInContainersWithPullsReadAndItsBatchAndDepthDefaultToEightAndTwo()
      throws Exception {
    Map<String, String> env = Map.of("HOME", "/h", "KNOTLESS_APPVIEW", "http://127.0.0.1:9/");
    String shell =
        org.junit.jupiter.api.Assertions.assertThrows(
                RunnerOptions.UsageException.class,
                () -> RunnerOptions.parse(List.of("--queue", "--executor", "shell", "a.t/r"), env))
            .getMessage();
    assertTrue(shell.startsWith("--queue refuses --executor shell"), shell);
    String noPulls =
        org.junit.jupiter.api.Assertions.assertThrows(
                RunnerOptions.UsageException.class,
                () -> RunnerOptions.parse(List.of("--queue", "a.t/r"), env))
            .getMessage();
    assertTrue(noPulls.startsWith("--queue needs --pulls"), noPulls);
    String zero =
        org.junit.jupiter.api.Assertions.assertThrows(
                RunnerOptions.UsageException.class,
                () ->
                    RunnerOptions.parse(
                        List.of("--pulls", "--queue", "--batch", "0", "a.t/r"), env))
            .getMessage();
    assertEquals("--batch 0: expected a whole number above 0", zero);

    RunnerOptions o =
        RunnerOptions.parse(List.of("--pulls", "--queue", "a.t/r"), env).orElseThrow();
    assertTrue(o.queue());
    assertEquals(8, o.batch());
    assertEquals(2, o.depth());
    RunnerOptions set =
        RunnerOptions.parse(
                List.of("--pulls", "--queue", "--batch", "3", "--depth", "1", "a.t/r"), env)
            .orElseThrow();
    assertEquals(3, set.batch());
    assertEquals(1, set.depth());
    assertTrue(!parse("a.t/r").queue());
  }

  @Test
  void theQueuesRecordsAreReadAgainEveryThirtySecondsOrEveryNoticeAndNoticeNeedsTheQueue()
      throws Exception {
    Map<String, String> env = Map.of("HOME", "/h", "KNOTLESS_APPVIEW", "http://127.0.0.1:9/");
    assertEquals(
        java.time.Duration.ofSeconds(30),
        RunnerOptions.parse(List.of("--pulls", "--queue", "a.t/r"), env).orElseThrow().notice());
    assertEquals(
        java.time.Duration.ofSeconds(5),
        RunnerOptions.parse(List.of("--pulls", "--queue", "--notice", "5", "a.t/r"), env)
            .orElseThrow()
            .notice());
    String alone =
        org.junit.jupiter.api.Assertions.assertThrows(
                RunnerOptions.UsageException.class,
                () -> RunnerOptions.parse(List.of("--pulls", "--notice", "5", "a.t/r"), env))
            .getMessage();
    assertTrue(alone.startsWith("--notice needs --queue"), alone);
    String zero =
        org.junit.jupiter.api.Assertions.assertThrows(
                RunnerOptions.UsageException.class,
                () ->
                    RunnerOptions.parse(
                        List.of("--pulls", "--queue", "--notice", "0", "a.t/r"), env))
            .getMessage();
    assertEquals("--notice 0: expected a whole number above 0", zero);
  }

  @Test
  void cachesAreKeptOnlyWhereACacheDirectoryIsNamedAndOnlyUnderDocker() throws Exception {
    assertTrue(!caches(parse("a.t/r")).enabled(), "no caches unless --cache-dir names a place");
    RunnerOptions o = parse("--cache-dir", "/srv/caches", "--cache-max", "4", "a.t/r");
    assertEquals(java.nio.file.Path.of("/srv/caches"), caches(o).dir());
    assertEquals(4L << 30, caches(o).maxBytes());
    assertEquals(16L << 30, caches(parse("--cache-dir", "/c", "a.t/r")).maxBytes());
    assertTrue(message("--cache-max", "0", "a.t/r").contains("--cache-max 0"));
    assertEquals(20L << 30, caches(o).floorBytes());
    assertEquals(0, caches(parse("--disk-floor", "0", "a.t/r")).floorBytes());
    assertTrue(message("--disk-floor", "-1", "a.t/r").contains("--disk-floor -1"));
    assertTrue(
        message("--executor", "shell", "--cache-dir", "/c", "a.t/r").contains("--cache-dir"));
  }

  @Test
  void badCommandLinesAreRefusedNamingWhatIsWrong() {
    assertTrue(message("--jobs", "0", "a.test/r").contains("--jobs 0"));
    assertTrue(message("--jobs", "many", "a.test/r").contains("--jobs many"));
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

  @Test
  void anImageFlagThatIsNoImageNameIsRefusedNamingIt() {
    assertEquals(
        "--image \"a;b\": holds ';', which no image name may", message("--image", "a;b", "a.t/r"));
  }

  @Test
  void whatARunMayTakeIsReadFromItsFlags() throws Exception {
    RunnerOptions o =
        parse(
            "--image",
            "node:22",
            "--cpus",
            "1.5",
            "--memory",
            "4",
            "--pids",
            "512",
            "--network",
            "runs",
            "--runtime",
            "runsc",
            "--trusted-runtime",
            "runc",
            "--trust",
            "did:plc:owner",
            "alice.test/site");
    assertEquals("node:22", docker(o).image());
    assertEquals(1.5, docker(o).cpus());
    assertEquals(4L << 30, docker(o).memoryBytes());
    assertEquals(512, docker(o).pids());
    assertEquals("runs", docker(o).network());
    assertEquals("runsc", docker(o).runtimeFor(false));
    assertEquals("runc", docker(o).runtimeFor(true));
    assertEquals(java.util.Set.of("did:plc:owner"), o.trust());
  }

  @Test
  void limitsThatAreNotWholeOrPositiveAreUsageErrorsNamingTheFlag() {
    var memory =
        assertThrows(
            RunnerOptions.UsageException.class, () -> parse("--memory", "1.5", "alice.test/site"));
    assertEquals("--memory 1.5: expected whole GiB, such as 4", memory.getMessage());
    var cpus =
        assertThrows(
            RunnerOptions.UsageException.class, () -> parse("--cpus", "-1", "alice.test/site"));
    assertEquals(
        "--cpus -1: expected a number of CPUs above 0, such as 2 or 1.5", cpus.getMessage());
    var executor =
        assertThrows(
            RunnerOptions.UsageException.class,
            () -> parse("--executor", "podman", "alice.test/site"));
    assertEquals("--executor podman: expected docker or shell", executor.getMessage());
    var shellLimits =
        assertThrows(
            RunnerOptions.UsageException.class,
            () -> parse("--executor", "shell", "--memory", "2", "alice.test/site"));
    assertTrue(shellLimits.getMessage().startsWith("--memory: only the docker executor"));
  }

  @Test
  void theDockerHostComesFromTheEnvironment() throws Exception {
    RunnerOptions o =
        RunnerOptions.parse(
                List.of("alice.test/site"),
                Map.of("HOME", "/h", "DOCKER_HOST", "unix:///run/other.sock"))
            .orElseThrow();
    assertEquals("unix:///run/other.sock", docker(o).dockerHost());
  }

  /** The docker kind's container settings the command line chose. */
  private static dev.knotless.runner.exec.docker.DockerSettings docker(RunnerOptions o) {
    return o.executor()
        .settings(dev.knotless.runner.exec.docker.DockerKind.Settings.class)
        .orElseThrow()
        .docker();
  }

  /** The docker kind's cache settings the command line chose. */
  private static dev.knotless.runner.exec.cache.CacheSettings caches(RunnerOptions o) {
    return o.executor()
        .settings(dev.knotless.runner.exec.docker.DockerKind.Settings.class)
        .orElseThrow()
        .caches();
  }
}
