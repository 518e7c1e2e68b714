package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.Network;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code --network} runs join, made once however many runs start at once, and the resolvers
 * {@code --resolv} gives them.
 */
class DockerNetworksIT {

  private DockerFixture f;
  private String network;

  @BeforeEach
  void start() throws Exception {
    f = DockerFixture.create();
    network = "knotless-test-" + Long.toHexString(System.nanoTime());
  }

  @AfterEach
  void stop() throws Exception {
    try {
      assertEquals(List.of(), f.containers(), "a container of the run was left behind");
    } finally {
      for (Network n : named()) {
        f.docker.removeNetworkCmd(n.getId()).exec();
      }
      f.close();
    }
  }

  /** The networks called exactly {@link #network}, the oldest first, as the daemon lists them. */
  private List<Network> named() {
    return f.docker.listNetworksCmd().withNameFilter(network).exec().stream()
        .filter(n -> n.getName().equals(network))
        .sorted(Comparator.comparing(Network::getCreated).thenComparing(Network::getId))
        .toList();
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  /** Starts {@code runs} runs on each executor at once, and waits for them all. */
  private List<RunResult> runAtOnce(int runs, DockerExecutor... executors) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<RunResult>> all = new ArrayList<>();
    for (DockerExecutor executor : executors) {
      for (int i = 0; i < runs; i++) {
        all.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return executor.run(f.spec(step("a", "hostname -i")), new RunCancellation());
                },
                r -> new Thread(r).start()));
      }
    }
    go.countDown();
    List<RunResult> results = new ArrayList<>();
    for (CompletableFuture<RunResult> r : all) {
      results.add(r.get(3, TimeUnit.MINUTES));
    }
    return results;
  }

  @EachRuntime
  void aRunOnTheMadeNetworkReadsTheResolversOfResolvAndCannotChangeThem(String runtime)
      throws Exception {
    // 192.0.2.0/24 is for documentation: nothing answers there, so no lookup is tried.
    String resolvers = "nameserver 192.0.2.53\nsearch knotless.test\n";
    Path file = f.repo.root.resolve("resolv.conf");
    Files.writeString(file, resolvers);
    try (DockerExecutor executor =
        f.executor(f.settings(runtime).withNetwork(network).withResolv(file))) {
      RunResult r =
          executor.run(
              f.spec(
                  step(
                      "resolvers",
                      "cat /etc/resolv.conf;"
                          // Its complaint on stderr could reach the log before cat's stdout.
                          + " if (echo nameserver 1.1.1.1 >> /etc/resolv.conf) 2>/dev/null;"
                          + " then echo changed;"
                          + " else echo unchanged; fi")),
              new RunCancellation());
      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
      assertTrue(log(r).contains("==> resolvers\n" + resolvers), log(r));
      assertTrue(log(r).contains("unchanged\n"), log(r));
    }
    assertEquals(resolvers, Files.readString(file));
  }

  @Test
  void sixRunsStartingAtOnceAllRunAndMakeOneNetwork() throws Exception {
    try (DockerExecutor executor = f.executor(f.settings().withNetwork(network))) {
      for (RunResult r : runAtOnce(6, executor)) {
        assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
      }
    }
    assertEquals(1, named().size(), "networks called " + network);
  }

  @Test
  void runsOfTwoProcessesStartingAtOnceShareOneNetwork() throws Exception {
    // The second executor reaches the same daemon at another address, so it shares no lock with
    // the first, as a second runner process of the same account would not.
    Path socket = f.repo.root.resolve("proxy.sock");
    try (SocketProxy proxy = SocketProxy.start(socket, Path.of("/var/run/docker.sock"));
        DockerExecutor one = f.executor(f.settings().withNetwork(network));
        DockerExecutor two =
            f.executor(f.settings().withNetwork(network).withDockerHost("unix://" + socket))) {
      for (RunResult r : runAtOnce(4, one, two)) {
        assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
      }
    }
    assertEquals(1, named().size(), "networks called " + network);
  }

  @Test
  void aRunJoinsTheOlderOfTwoNetworksAnotherProcessMadeAtOnceAndRemovesTheOther() throws Exception {
    List<String> made = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      made.add(
          f.docker
              .createNetworkCmd()
              .withName(network)
              .withDriver("bridge")
              .withCheckDuplicate(false)
              .withOptions(Map.of(Networks.NO_ICC, "false"))
              .withLabels(Labels.network(f.runnerDid))
              .exec()
              .getId());
    }
    String older = named().get(0).getId();
    assertTrue(made.contains(older), made + " " + older);
    try (DockerExecutor executor = f.executor(f.settings().withNetwork(network))) {
      RunResult r = executor.run(f.spec(step("a", "hostname -i")), new RunCancellation());
      assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    }
    List<Network> left = named();
    assertEquals(1, left.size(), "networks called " + network);
    assertEquals(older, left.get(0).getId(), "the one kept is the oldest, as every process keeps");
  }
}
