package dev.knotless.runner.exec.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.exec.RunResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A docker test's fixture, made before each test and closed after it, once the test has shown that
 * no container of its runs was left behind.
 */
abstract class WithDocker {

  protected DockerFixture f;

  @BeforeEach
  final void makeFixture() throws Exception {
    f = DockerFixture.create();
  }

  @AfterEach
  final void noContainerOfTheRunIsLeftBehind() throws Exception {
    try {
      assertEquals(List.of(), f.containers(), "a container of the run was left behind");
    } finally {
      f.close();
    }
  }

  protected static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }
}
