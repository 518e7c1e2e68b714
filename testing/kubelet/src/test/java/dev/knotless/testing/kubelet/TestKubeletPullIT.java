package dev.knotless.testing.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.LocalRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The test kubelet's image pulls against a real registry (Debian's docker-registry on 127.0.0.1):
 * each pull policy does what a kubelet's does, a pull secret that is not there is warned of and the
 * pull goes on, and an event list by {@code involvedObject.name} gives that pod's events alone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestKubeletPullIT {

  private static final String NS = "pulls";

  private LocalRegistry registry;
  private KubeApiServer api;
  private TestKubelet kubelet;
  private KubernetesClient client;

  @BeforeAll
  void start() throws Exception {
    registry = LocalRegistry.start();
    api = KubeApiServer.start();
    kubelet = TestKubelet.startOnAnyDaemon(api, Map.of(), 0);
    client = api.client(NS, "test-token");
  }

  @AfterAll
  void stop() throws Exception {
    try {
      kubelet.close();
    } finally {
      client.close();
      api.close();
      registry.close();
    }
  }

  private Pod pod(String name, String image, String policy, String... secrets) {
    var spec =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NS)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withImage(image)
            .withImagePullPolicy(policy)
            .withCommand("sleep", "600")
            .endContainer();
    for (String s : secrets) {
      spec.addNewImagePullSecret(s);
    }
    return client.pods().inNamespace(NS).resource(spec.endSpec().build()).create();
  }

  /** Waits for the pod's container to run, or to wait for {@code reason}; returns the state. */
  private String await(String name, String reason) {
    Pod[] seen = new Pod[1];
    client
        .pods()
        .inNamespace(NS)
        .withName(name)
        .waitUntilCondition(
            p -> {
              seen[0] = p;
              return p != null && reason.equals(Fabric8State.of(p));
            },
            2,
            TimeUnit.MINUTES);
    return Fabric8State.of(seen[0]);
  }

  /** The events listed for {@code name} by field selector, as "Type Reason: message". */
  private List<String> events(String name) {
    return client
        .v1()
        .events()
        .inNamespace(NS)
        .withField("involvedObject.name", name)
        .list()
        .getItems()
        .stream()
        .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
        .toList();
  }

  private void delete(String name) {
    client.pods().inNamespace(NS).withName(name).withGracePeriod(0).delete();
  }

  @Test
  void alwaysPullsAnImageAlreadyOnTheNodeAndIfNotPresentDoesNot() {
    String image = registry.publish("always", "1");
    pod("first", image, "IfNotPresent");
    await("first", "Running");
    pod("again", image, "Always");
    await("again", "Running");
    pod("present", image, "IfNotPresent");
    await("present", "Running");

    assertEquals("Normal Pulling: Pulling image \"" + image + "\"", events("first").get(0));
    List<String> again = events("again");
    assertEquals(2, again.size(), again.toString());
    assertEquals("Normal Pulling: Pulling image \"" + image + "\"", again.get(0));
    assertTrue(
        again.get(1).startsWith("Normal Pulled: Successfully pulled image \"" + image + "\" in "),
        again.toString());
    assertEquals(
        List.of("Normal Pulled: Container image \"" + image + "\" already present on machine"),
        events("present"));
    delete("first");
    delete("again");
    delete("present");
  }

  @Test
  void neverRunsWhatIsOnTheNodeAndWaitsForWhatIsNot() {
    String absent = registry.publish("never", "1");
    assertEquals(
        "ErrImageNeverPull", await(name(pod("never", absent, "Never")), "ErrImageNeverPull"));
    assertEquals(
        List.of(
            "Warning ErrImageNeverPull: Container image \""
                + absent
                + "\" is not present with pull policy of Never"),
        events("never"));
    pod("local", LocalDocker.BUSYBOX, "Never");
    assertEquals("Running", await("local", "Running"));
    delete("never");
    delete("local");
  }

  @Test
  void aPullSecretThatIsNotThereIsWarnedOfAndThePullGoesOn() {
    String image = registry.publish("secret", "1");
    pod("secret", image, "IfNotPresent", "no-such-secret");
    assertEquals("Running", await("secret", "Running"));
    List<String> said = events("secret");
    assertEquals(
        "Warning FailedToRetrieveImagePullSecret: Unable to retrieve some image pull secrets"
            + " (no-such-secret); attempting to pull the image may not succeed.",
        said.get(0),
        said.toString());
    assertTrue(said.get(2).startsWith("Normal Pulled: Successfully pulled image"), said.toString());
    delete("secret");
  }

  @Test
  void aFailedPullWaitsInBackOffAndIsTriedAgainOnceTheImageComes() throws Exception {
    String image = registry.reference("later", "1");
    pod("later", image, "IfNotPresent");
    assertEquals("ImagePullBackOff", await("later", "ImagePullBackOff"));
    List<String> said = events("later");
    assertEquals("Normal Pulling: Pulling image \"" + image + "\"", said.get(0), said.toString());
    assertTrue(
        said.get(1)
            .startsWith(
                "Warning Failed: Failed to pull image \""
                    + image
                    + "\": Error response from daemon: manifest for "
                    + image
                    + " not found"),
        said.toString());
    assertEquals("Warning Failed: Error: ErrImagePull", said.get(2));
    assertTrue(
        said.contains("Normal BackOff: Back-off pulling image \"" + image + "\""), said + "");
    // The image comes; the kubelet's next try, after the first back-off (10 s), runs the pod.
    assertEquals(image, registry.publish("later", "1"));
    long t0 = System.nanoTime();
    assertEquals("Running", await("later", "Running"));
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertTrue(took.compareTo(Duration.ofSeconds(15)) < 0, "the retry came after " + took);
    delete("later");
  }

  private static String name(Pod p) {
    return p.getMetadata().getName();
  }

  /** "Running", or the reason the pod's container waits, or null before either. */
  private static final class Fabric8State {
    static String of(Pod p) {
      if (p == null || p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
        return null;
      }
      for (var cs : p.getStatus().getContainerStatuses()) {
        if (cs.getState() != null && cs.getState().getWaiting() != null) {
          return cs.getState().getWaiting().getReason();
        }
        if (cs.getState() != null && cs.getState().getRunning() != null) {
          return "Running";
        }
      }
      return null;
    }
  }
}
