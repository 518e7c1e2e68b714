package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Network;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.testing.LocalDocker;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What a run may take, as the real daemon enforces it. */
class DockerLimitsIT extends WithDocker {

  /** Runs {@code spec}, inspecting its container while its one step waits to be let go. */
  private InspectContainerResponse inspectWhileRunning(DockerExecutor executor, RunSpec spec)
      throws Exception {
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> executor.run(spec, new RunCancellation()));
    InspectContainerResponse c = f.awaitContainer();
    f.release("go");
    RunResult r = run.get(2, TimeUnit.MINUTES);
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    return c;
  }

  @Test
  void theLimitsAreWhatDockerInspectSays() throws Exception {
    DockerSettings s = f.settings().withLimits(1.5, 1, 128);
    try (DockerExecutor executor = f.executor(s)) {
      RunSpec main = f.spec(step("wait", DockerFixture.waitFor("go")));
      InspectContainerResponse c = inspectWhileRunning(executor, main);
      assertEquals(1_500_000_000L, c.getHostConfig().getNanoCPUs());
      assertEquals(1L << 30, c.getHostConfig().getMemory());
      assertEquals(1L << 30, c.getHostConfig().getMemorySwap(), "no swap past --memory");
      assertEquals(128L, c.getHostConfig().getPidsLimit());
      assertEquals(0, c.getHostConfig().getCpuShares(), "main's run keeps the default weight");
      assertEquals(Boolean.TRUE, c.getHostConfig().getInit());

      InspectContainerResponse pull = inspectWhileRunning(executor, main.withNiceness(10));
      assertEquals(256, pull.getHostConfig().getCpuShares(), "other runs get the lower weight");
    }
  }

  @Test
  void theRuntimeFollowsWhoseCodeRuns() throws Exception {
    DockerSettings s =
        f.settings().withRuntimes(LocalDocker.SANDBOX_RUNTIME, LocalDocker.TRUSTED_RUNTIME);
    try (DockerExecutor executor = f.executor(s)) {
      RunSpec spec = f.spec(step("wait", DockerFixture.waitFor("go")));
      assertEquals(
          LocalDocker.SANDBOX_RUNTIME,
          inspectWhileRunning(executor, spec).getHostConfig().getRuntime());
      assertEquals(
          LocalDocker.TRUSTED_RUNTIME,
          inspectWhileRunning(executor, spec.withTrustedCode(true)).getHostConfig().getRuntime());
    }
    try (DockerExecutor onlyOne =
        f.executor(f.settings().withRuntimes(LocalDocker.SANDBOX_RUNTIME, null))) {
      RunSpec trusted = f.spec(step("wait", DockerFixture.waitFor("go"))).withTrustedCode(true);
      assertEquals(
          LocalDocker.SANDBOX_RUNTIME,
          inspectWhileRunning(onlyOne, trusted).getHostConfig().getRuntime(),
          "with no --trusted-runtime, trusted code keeps --runtime");
    }
  }

  @EachRuntime
  void aForkBombStopsAtThePidsLimitAndTheCheckSaysSo(String runtime) throws Exception {
    // runsc's own threads count against the limit too: 32 would not let its sandbox start.
    int pids = runtime.equals(LocalDocker.SANDBOX_RUNTIME) ? 128 : 32;
    try (DockerExecutor executor = f.executor(f.settings(runtime).withLimits(0, 0, pids))) {
      RunResult r =
          executor.run(
              f.spec(
                  step(
                      "bomb",
                      "i=0; while [ $i -lt 200 ]; do sleep 30 & i=$((i+1)); done; echo all forked"),
                  step("after", "echo after ran")),
              new RunCancellation());
      assertInstanceOf(RunOutcome.Failed.class, r.outcome(), log(r));
      assertFalse(log(r).contains("all forked"), log(r));
      assertFalse(log(r).contains("after ran"), log(r));
      if (runtime.equals(LocalDocker.SANDBOX_RUNTIME)) {
        String note = r.steps().get(0).note();
        assertTrue(
            Pattern.matches(
                "the container stopped with status [0-9]+ under runtime "
                    + LocalDocker.SANDBOX_RUNTIME
                    + ": under gVisor the sandbox's own threads count against --pids "
                    + pids
                    + " with the run's processes, and a run that reaches it ends the sandbox",
                note),
            note + "\n" + log(r));
      } else {
        assertTrue(log(r).contains("can't fork"), log(r));
      }
    }
  }

  @EachRuntime
  void aMemoryHogIsKilledAndTheCheckSaysSo(String runtime) throws Exception {
    try (DockerExecutor executor = f.executor(f.settings(runtime).withLimits(0, 1, 0))) {
      RunResult r =
          executor.run(
              f.spec(step("hog", "head -c 3000m /dev/zero | tail"), step("after", "true")),
              new RunCancellation());
      assertInstanceOf(RunOutcome.Failed.class, r.outcome(), log(r));
      assertEquals(
          "killed for want of memory: the run may take 1 GiB (--memory)",
          r.steps().get(0).note(),
          log(r));
    }
  }

  @EachRuntime
  void aCpuHogIsHeldToItsCpus(String runtime) throws Exception {
    try (DockerExecutor executor = f.executor(f.settings(runtime).withLimits(0.5, 0, 0))) {
      RunSpec hog =
          f.spec(
              step(
                  "hog",
                  "(while [ ! -f /work/go ]; do :; done) & (while [ ! -f /work/go ]; do :; done) &"
                      + " wait"));
      CompletableFuture<RunResult> run =
          CompletableFuture.supplyAsync(() -> executor.run(hog, new RunCancellation()));
      HostCgroup cpu = HostCgroup.cpuOf(f.docker, f.awaitContainer().getId());
      HostCgroup.Sample before = cpu.sample();
      // Read while the container runs: its cgroup goes with it.
      double quota = cpu.quotaCpus();
      Thread.sleep(4_000);
      HostCgroup.Sample after = cpu.sample();
      f.release("go");
      RunResult r = run.get(2, TimeUnit.MINUTES);

      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
      assertEquals(0.5, quota, 1e-9, "the kernel's quota for the run's cgroup");
      double cpus = after.cpusSince(before);
      assertTrue(cpus <= 0.5 * 1.15, "two busy loops took " + cpus + " CPUs of 0.5");
      // On a machine busy enough that the hog never reached its half CPU, the kernel had nothing
      // to hold back (a suite run at load 17 saw that); once it reaches it, it is throttled.
      if (cpus >= 0.45) {
        assertTrue(after.throttled() > before.throttled(), "the kernel never held it back");
      }
    }
  }

  @EachRuntime
  void twoRunsOnTheMadeNetworkCannotReachEachOther(String runtime) throws Exception {
    String network = "knotless-test-" + Long.toHexString(System.nanoTime());
    try (DockerExecutor executor = f.executor(f.settings(runtime).withNetwork(network))) {
      Pattern addressLine = Pattern.compile("address (\\d+\\.\\d+\\.\\d+\\.\\d+)");
      CompletableFuture<String> address = new CompletableFuture<>();
      RunListener listener =
          RunListener.lines(
              line -> {
                Matcher m = addressLine.matcher(line);
                if (m.matches()) {
                  address.complete(m.group(1));
                }
              });
      CompletableFuture<RunResult> server =
          CompletableFuture.supplyAsync(
              () ->
                  executor.run(
                      f.spec(
                          step(
                              "listen",
                              "(while :; do echo hi | nc -l -p 8080; done) & "
                                  + "echo address $(hostname -i); "
                                  + DockerFixture.waitFor("go"))),
                      new RunCancellation(),
                      listener));
      String a = address.get(60, TimeUnit.SECONDS);
      RunResult client =
          executor.run(
              f.spec(
                      step(
                          "itself",
                          "(echo hi | nc -l -p 9090) & sleep 0.3;"
                              + " nc -w 3 $(hostname -i) 9090 </dev/null | grep hi"),
                      step(
                          "other",
                          "if nc -w 3 $OTHER 8080 </dev/null | grep hi; then echo reached; exit 1;"
                              + " else echo unreachable; fi"))
                  .withEnv(Map.of("OTHER", a)),
              new RunCancellation());
      f.release("go");
      RunResult s = server.get(60, TimeUnit.SECONDS);
      assertInstanceOf(RunOutcome.Passed.class, s.outcome(), log(s));
      assertInstanceOf(RunOutcome.Passed.class, client.outcome(), log(client));
      assertTrue(log(client).contains("unreachable"), log(client));

      Network n = f.docker.inspectNetworkCmd().withNetworkId(network).exec();
      assertEquals("bridge", n.getDriver());
      assertEquals("false", n.getOptions().get(Networks.NO_ICC));
      executor.removeLeftovers();
      assertNull(
          f.docker.listNetworksCmd().withNameFilter(network).exec().stream()
              .filter(x -> x.getName().equals(network))
              .findFirst()
              .orElse(null),
          "a sweep with no run going removes the network the runner made");
    }
  }
}
