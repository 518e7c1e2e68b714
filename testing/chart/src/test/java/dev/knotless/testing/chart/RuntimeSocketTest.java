package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No workload the chart renders, with any of the shapes it can take, is handed the node's container
 * runtime: jobs run as pods through the API server, never through a docker or containerd socket.
 * The detector is shown to catch every way such a socket can be mounted on a hand-written manifest,
 * since the chart offers no value that adds a volume.
 */
class RuntimeSocketTest {
  /** Kinds that hold a pod spec; each rendered one must be read, not skipped. */
  private static final Set<String> WORKLOADS =
      Set.of(
          "Deployment",
          "StatefulSet",
          "DaemonSet",
          "ReplicaSet",
          "Job",
          "CronJob",
          "Pod",
          "PodTemplate");

  static Stream<RenderedChart> renders() {
    return Stream.of(
        RenderedChart.render(),
        RenderedChart.render("all-features.yaml"),
        RenderedChart.render("strimzi.yaml"),
        RenderedChart.render(List.of(), Map.of("scheduler.enabled", false)),
        RenderedChart.render(List.of(), Map.of("autoscaling.mode", "keda")));
  }

  @ParameterizedTest
  @MethodSource("renders")
  void noRenderedWorkloadMountsAContainerRuntimesSocket(RenderedChart chart) {
    int workloads = 0;
    for (RenderedChart.Doc doc : chart.docs) {
      if (WORKLOADS.contains(doc.kind())) {
        workloads++;
        assertFalse(
            RuntimeSockets.podSpecs(doc).isEmpty(),
            doc.kind() + "/" + doc.name() + ": its pod spec was not found, so not read");
      }
      assertEquals(List.of(), RuntimeSockets.in(doc), doc.kind() + "/" + doc.name());
    }
    assertTrue(workloads >= 3, "the services at least: " + workloads);
  }

  @Test
  void neitherDoesTheTopicJobHelmRunsAsAHook(@TempDir Path copy) {
    RenderedChart chart = RenderedChart.renderWithHooks(copy, Map.of("kafka.topics.create", "job"));
    List<RenderedChart.Doc> jobs = chart.ofKind("Job");
    assertEquals(1, jobs.size(), "the topic Job");
    noRenderedWorkloadMountsAContainerRuntimesSocket(chart);
  }

  @Test
  void theDetectorFindsASocketHoweverAWorkloadMountsIt() {
    List<RenderedChart.Doc> docs =
        RenderedChart.parseFile(RenderedChart.resource("runtime-sockets.yaml"));
    assertEquals(10, docs.size());
    for (RenderedChart.Doc doc : docs) {
      String expect = doc.tree().path("metadata").path("annotations").path("expect").asText();
      List<String> found = RuntimeSockets.in(doc);
      assertFalse(RuntimeSockets.podSpecs(doc).isEmpty(), doc.name());
      assertEquals("yes".equals(expect), !found.isEmpty(), doc.kind() + "/" + doc.name() + found);
    }
    assertEquals(
        List.of(
            "CronJob/dockershim spec.jobTemplate.spec.template.spec.volumes[0]:"
                + " /var/run/dockershim.sock"),
        RuntimeSockets.in(
            docs.stream().filter(d -> d.name().equals("dockershim")).findFirst().orElseThrow()),
        "the finding says where the mount is");
  }

  @Test
  void aDirectoryAboveASocketExposesItAndALookalikeDoesNot() {
    for (String p :
        List.of("/", "/run", "/var", "/var/run", "/run/containerd/io.containerd.runtime.v2.task")) {
      assertTrue(RuntimeSockets.exposesRuntime(p), p);
    }
    for (String p : List.of("/var/log", "/var/run/dockerish", "/srv/containerd.socket", "/data")) {
      assertFalse(RuntimeSockets.exposesRuntime(p), p);
    }
  }
}
