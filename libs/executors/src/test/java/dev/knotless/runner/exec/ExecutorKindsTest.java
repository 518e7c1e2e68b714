package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.docker.DockerKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutorKindsTest {

  private static final String NOWHERE = "unix:///nonexistent/knotless/docker.sock";

  @Test
  void theKindsOnTheClassPathAreDockerThenShell() {
    assertEquals(List.of("docker", "shell"), ExecutorKinds.installed().names());
  }

  @Test
  void anUnknownKindIsRefusedNamingTheKindsThereAre() {
    var e =
        assertThrows(
            IllegalArgumentException.class, () -> ExecutorKinds.installed().kind("podman"));
    assertEquals("no executor called podman: expected docker or shell", e.getMessage());
  }

  @Test
  void theDockerKindReadsItsOwnFlagsAndTheDaemonFromTheEnvironment() {
    var chosen =
        ExecutorKinds.installed()
            .choose(
                "docker",
                new ExecutorConfig(
                    Map.of("image", "node:22", "cpus", "1.5", "cache-dir", "/c"),
                    Map.of("DOCKER_HOST", "unix:///run/other.sock")));
    var s = chosen.settings(DockerKind.Settings.class).orElseThrow();
    assertEquals("node:22", s.docker().image());
    assertEquals(1.5, s.docker().cpus());
    assertEquals("unix:///run/other.sock", s.docker().dockerHost());
    assertEquals(Path.of("/c"), s.caches().dir());
  }

  @Test
  void aBadValueIsRefusedNamingItsFlag() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ExecutorKinds.installed()
                    .choose("docker", new ExecutorConfig(Map.of("memory", "1.5"), Map.of())));
    assertEquals("--memory 1.5: expected whole GiB, such as 4", e.getMessage());
  }

  @Test
  void dockerIsUnavailableSayingWhereNoDaemonAnswers() {
    var chosen =
        ExecutorKinds.installed()
            .choose(
                "docker", new ExecutorConfig(Map.of(DockerKind.DOCKER_HOST, NOWHERE), Map.of()));
    String why = chosen.unavailable().orElseThrow();
    assertTrue(why.startsWith("could not reach the docker daemon at " + NOWHERE), why);
  }

  @Test
  void detectionFallsToShellWhenNoDaemonAnswersAndSaysWhy() {
    List<String> said = new ArrayList<>();
    var chosen =
        ExecutorKinds.installed()
            .detect(
                new ExecutorConfig(Map.of(DockerKind.DOCKER_HOST, NOWHERE), Map.of()), said::add);
    assertEquals("shell", chosen.name());
    assertTrue(said.get(0).startsWith("not the docker executor: could not reach"), said.get(0));
    assertEquals("using the shell executor", said.get(1));
  }

  @Test
  void onlyTheShellKindShowsStepsTheRunnersOwnVariables() {
    var kinds = ExecutorKinds.installed();
    Map<String, String> env = Map.of("PATH", "/bin");
    assertEquals(env, kinds.kind("shell").hostEnvironment(env));
    assertEquals(Map.of(), kinds.kind("docker").hostEnvironment(env));
  }

  @Test
  void aRunsImageIsTheWorkflowsElseTheExecutorsDefault() {
    RunSpec spec =
        RunSpec.of(
            Path.of("/m"),
            "a".repeat(40),
            List.of(ExecStep.run("a", "true", java.time.Duration.ofSeconds(5))));
    assertEquals("debian:bookworm-slim", ContainerImage.of(spec, "debian:bookworm-slim"));
    RunSpec named = spec.withAnyOption(ContainerImage.named("node:22"));
    assertEquals("node:22", ContainerImage.of(named, "debian:bookworm-slim"));
    assertEquals(spec, spec.withAnyOption(ContainerImage.named(null)));
    assertEquals(named.options(), named.withNiceness(10).withEnv(Map.of("A", "1")).options());
  }
}
