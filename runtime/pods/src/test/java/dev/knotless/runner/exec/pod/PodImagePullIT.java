package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ContainerImage;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runtime.pods.PodCluster;
import dev.knotless.testing.LocalRegistry;
import io.fabric8.kubernetes.api.model.Event;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Run pods whose image lives only in a real registry (Debian's docker-registry on 127.0.0.1): the
 * test kubelet pulls it as a kubelet would, its events say so, and the pod executor reads from them
 * how long the pull took; a second pod finds the image on the node; an image the registry lacks
 * ends its run with the pull's error, after the kubelet's back-off has begun.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodImagePullIT {

  private static final Pattern POD = Pattern.compile("(?m)^pod (\\S+) from ");

  private GitFixture repo;
  private PodCluster cluster;
  private LocalRegistry registry;
  private Path work;
  private final List<Duration> pulls = new CopyOnWriteArrayList<>();
  private final List<Boolean> notRunning = new CopyOnWriteArrayList<>();
  private final PodObserver observer =
      new PodObserver() {
        @Override
        public void pulled(Duration took) {
          pulls.add(took);
        }

        @Override
        public void notRunning(boolean imagePull) {
          notRunning.add(imagePull);
        }
      };

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    repo = GitFixture.create(Files.createTempDirectory(tmp, "pod-image-pull-it-"));
    work = Files.createDirectories(repo.root.resolve("work"));
    registry = LocalRegistry.start();
    cluster = new PodCluster(work, PodCluster.settings());
    cluster.executor().observe(observer);
  }

  @AfterAll
  void stop() throws Exception {
    try {
      cluster.close();
    } finally {
      registry.close();
      try (Stream<Path> all = Files.walk(repo.root)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private RunSpec spec(String image) {
    return RunSpec.of(
            repo.mirror,
            repo.commit,
            List.of(ExecStep.run("which", "cat /etc/knotless-image", Duration.ZERO)))
        .withOption(new ContainerImage(image));
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  private static String podOf(RunResult r) {
    Matcher m = POD.matcher(log(r));
    assertTrue(m.find(), "the log names no pod: " + log(r));
    return m.group(1);
  }

  /** The events the kubelet recorded on pod {@code name}, as "Reason: message". */
  private List<String> events(String name) {
    return cluster.client.v1().events().inNamespace(PodCluster.NAMESPACE).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .map((Event e) -> e.getReason() + ": " + e.getMessage())
        .toList();
  }

  @Test
  void thePodsFirstRunPullsItsImageAndTheNextFindsItOnTheNode() {
    String image = registry.publish("pulled", "1");
    assertFalse(LocalRegistry.inDaemon(image), "the daemon must not hold the image before the run");

    RunResult first = cluster.run(spec(image), new RunCancellation());
    assertInstanceOf(RunOutcome.Passed.class, first.outcome(), log(first));
    assertTrue(log(first).contains(image), "the step read the registry's image: " + log(first));
    List<String> said = events(podOf(first));
    assertEquals("Pulling: Pulling image \"" + image + "\"", said.get(0), said.toString());
    assertTrue(
        said.get(1)
            .matches(
                "Pulled: Successfully pulled image \""
                    + Pattern.quote(image)
                    + "\" in [0-9.]+(ms|s) \\([0-9.]+(ms|s) including waiting\\)\\. Image size: [1-9][0-9]* bytes\\."),
        said.toString());
    assertEquals(1, pulls.size(), "one pull time heard: " + pulls);
    assertTrue(pulls.get(0).compareTo(Duration.ZERO) > 0, "pull time " + pulls);
    assertTrue(LocalRegistry.inDaemon(image), "the pull left the image on the node");
    System.out.println("pulled " + image + " in " + pulls.get(0).toNanos() / 1e9 + " s");

    RunResult second = cluster.run(spec(image), new RunCancellation());
    assertInstanceOf(RunOutcome.Passed.class, second.outcome(), log(second));
    assertEquals(
        List.of("Pulled: Container image \"" + image + "\" already present on machine"),
        events(podOf(second)));
    assertEquals(1, pulls.size(), "an image already there gives no pull time: " + pulls);
  }

  @Test
  void anImageTheRegistryLacksEndsTheRunWithThePullsErrorOnceTheBackOffHasBegun() {
    String image = registry.reference("missing", "1");
    PodExecutor patient = cluster.patient(Duration.ofSeconds(3), work);
    patient.observe(observer);
    notRunning.clear();

    RunResult r = patient.run(spec(image), new RunCancellation());

    RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
    String why =
        "could not pull image "
            + image
            + ": ImagePullBackOff: Back-off pulling image \""
            + image
            + "\": ErrImagePull: Error response from daemon: manifest for "
            + image
            + " not found";
    assertTrue(e.message().startsWith(why), e.message());
    assertTrue(log(r).contains(why), log(r));
    assertEquals(List.of(true), notRunning, "one run failed for its image");
    List<String> said =
        cluster.client.v1().events().inNamespace(PodCluster.NAMESPACE).list().getItems().stream()
            .filter(ev -> ev.getMessage().contains(image))
            .map(ev -> ev.getReason() + ": " + ev.getMessage())
            .toList();
    assertEquals("Pulling: Pulling image \"" + image + "\"", said.get(0), said.toString());
    assertTrue(
        said.get(1).startsWith("Failed: Failed to pull image \"" + image + "\": "),
        said.toString());
    assertTrue(said.contains("BackOff: Back-off pulling image \"" + image + "\""), said.toString());
    assertEquals(
        List.of(),
        cluster.client.pods().inNamespace(PodCluster.NAMESPACE).list().getItems(),
        "the failed run's pod was deleted");
  }
}
