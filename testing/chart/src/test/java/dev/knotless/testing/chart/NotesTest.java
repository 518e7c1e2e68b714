package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the notes Helm prints after an install say. The embedded Helm prints them only from an
 * install against a cluster, so the test renders NOTES.txt through {@code tpl} into a ConfigMap of
 * a copy of the chart, with the same values and the same helpers.
 */
class NotesTest {
  @TempDir Path copy;

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theNotesNameTheManagementPortAndWhatScalingAndBudgetsDo(boolean scaled) throws IOException {
    String notes =
        notes(
            scaled
                ? Map.of(
                    "autoscaling.mode", "keda",
                    "kafka.topics.create", "strimzi",
                    "kafka.strimzi.cluster", "main",
                    "autoscaling.reconciler.maxReplicas", 20,
                    "ingester.replicas", 2)
                : Map.of());
    assertTrue(notes.contains("port-forward svc/ci-knotless-run-reconciler 9000"), notes);
    assertTrue(notes.contains("curl -s localhost:9000/q/metrics"), notes);
    assertFalse(notes.contains("8080"), "the service port serves nothing: " + notes);
    if (scaled) {
      assertTrue(notes.contains("scale between 2 and 20 replicas (keda)"), notes);
      assertTrue(notes.contains("maxReplicas is above kafka.topics.doorbells.partitions"), notes);
      assertFalse(notes.contains("has no PodDisruptionBudget"), notes);
      assertFalse(notes.contains("knotless.run-events.dead (kafka.topics.create"), notes);
    } else {
      assertFalse(notes.contains("scale between"), notes);
      assertTrue(notes.contains("The ingester runs one replica and so has no PodDisruptionBudget"));
      assertTrue(notes.contains("knotless.run-events.dead (kafka.topics.create"), notes);
    }
  }

  private String notes(Map<String, Object> sets) throws IOException {
    Path chart = RenderedChart.chartDir();
    try (Stream<Path> files = Files.walk(chart)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(chart.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    Files.move(copy.resolve("templates/NOTES.txt"), copy.resolve("notes.txt"));
    Files.writeString(
        copy.resolve("templates/notes-configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: |\n"
            + "    {{- tpl (.Files.Get \"notes.txt\") . | nindent 4 }}\n");
    var template =
        new Helm(copy)
            .template()
            .withName(RenderedChart.RELEASE)
            .withNamespace(RenderedChart.NAMESPACE)
            .withKubeVersion(RenderedChart.KUBE_VERSION);
    sets.forEach(template::set);
    return RenderedChart.parse(template.call()).stream()
        .filter(d -> d.kind().equals("ConfigMap") && d.name().equals("notes"))
        .findFirst()
        .orElseThrow()
        .tree()
        .path("data")
        .path("notes")
        .asText();
  }
}
