package dev.knotless.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which of a daemon's runtimes the tours take for gVisor, from what {@code docker info} says. */
class LocalDockerTest {

  @Test
  void theHarnessesSandboxRuntimeIsTakenBeforeAnyOtherRunsc() {
    String json =
        "{\"a-runsc\":{\"path\":\"/usr/local/bin/runsc\"},"
            + "\"knotless-sandbox\":{\"path\":\"/usr/bin/runsc\",\"runtimeArgs\":[\"--network=host\"]},"
            + "\"runc\":{\"path\":\"runc\"}}";
    assertEquals(Optional.of(LocalDocker.SANDBOX_RUNTIME), LocalDocker.gvisorRuntime(json));
  }

  @Test
  void anyRuntimeWhoseProgramIsRunscIsGvisorWhateverItsName() {
    String json =
        "{\"io.containerd.runc.v2\":{\"path\":\"runc\"},\"runsc-debug\":{\"path\":\"/opt/runsc\"},"
            + "\"sandboxed\":{\"path\":\"runsc\"},\"runc\":{\"path\":\"runc\"}}";
    assertEquals(Optional.of("runsc-debug"), LocalDocker.gvisorRuntime(json));
  }

  @Test
  void aDaemonWithOnlyRuncHasNoGvisor() {
    String json =
        "{\"io.containerd.runc.v2\":{\"path\":\"runc\"},\"runc\":{\"path\":\"runc\"},"
            + "\"not-runsc\":{\"path\":\"/usr/bin/runsc-wrapper\"}}";
    assertEquals(Optional.empty(), LocalDocker.gvisorRuntime(json));
  }

  @Test
  void aRunsLogSaysWhichRuntimeItsContainerGot() {
    assertEquals(
        "runtime knotless-sandbox",
        LocalDocker.runtimeOfRun(
            "==> checkout\ncontainer 0123456789ab from busybox:1, runtime knotless-sandbox,"
                + " network n\n==> a\n"));
    assertEquals(
        "the daemon's default runtime",
        LocalDocker.runtimeOfRun("container 0123456789ab from busybox:1\n==> a\n"));
    assertEquals("no container", LocalDocker.runtimeOfRun("==> a\nhi\n"));
  }
}
