package dev.knotless.testing.chart;

import static dev.knotless.testing.chart.ChartTest.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The watched repositories in one place, in one format, and the runner's key mounted by reference
 * into the one service that opens owners' sealed secrets.
 */
class RepositoriesChartTest {
  private final RenderedChart all = RenderedChart.render("all-features.yaml");

  @Test
  void theRepositoriesAreListedOnceInAConfigMapTheReconcilersMountAndTheIngesterListsNone() {
    List<ConfigMap> maps =
        all.typed(ConfigMap.class).stream()
            .filter(m -> m.getMetadata().getName().equals("ci-knotless-run-repositories"))
            .toList();
    assertEquals(1, maps.size());
    String list = maps.get(0).getData().get("repos.txt");
    assertTrue(list.contains("\nalice.example.com/site\ndid:plc:abc123/docs\n"), list);

    PodSpec reconciler = ChartTest.pod(all, "reconciler");
    Container c = reconciler.getContainers().get(0);
    assertEquals(
        "/etc/knotless/repositories/repos.txt",
        env(c, "KNOTLESS_RECONCILER_REPOS_FILE").getValue());
    assertTrue(
        c.getVolumeMounts().stream()
            .anyMatch(
                m ->
                    m.getName().equals("repositories")
                        && m.getMountPath().equals("/etc/knotless/repositories")
                        && Boolean.TRUE.equals(m.getReadOnly())));
    assertEquals("true", env(c, "KNOTLESS_RECONCILER_DISCOVER").getValue());
    assertEquals("true", env(c, "KNOTLESS_RECONCILER_PULLS").getValue());
    assertEquals("https://appview.example.com", env(c, "KNOTLESS_RECONCILER_APPVIEW").getValue());

    Container ingester = ChartTest.pod(all, "ingester").getContainers().get(0);
    assertTrue(
        ingester.getEnv().stream().map(EnvVar::getName).noneMatch(n -> n.endsWith("_REPOS")),
        ingester.getEnv().toString());
    assertEquals("true", env(ingester, "KNOTLESS_INGESTER_DISCOVER").getValue());
    assertEquals("true", env(ingester, "KNOTLESS_INGESTER_PULLS").getValue(), "pulls set both");
    // It reads the list the reconcilers keep in PostgreSQL.
    assertTrue(env(ingester, "QUARKUS_DATASOURCE_JDBC_URL").getValue().startsWith("jdbc:"));
  }

  @Test
  void theMergeQueueSetsTheReconcilersAndTheIngesterAndNeedsPulls() {
    RenderedChart queue =
        RenderedChart.render(
            List.of(RenderedChart.resource("all-features.yaml")),
            Map.of("queue.enabled", "true", "queue.batch", "4"));
    Container c = ChartTest.pod(queue, "reconciler").getContainers().get(0);
    assertEquals("true", env(c, "KNOTLESS_RECONCILER_QUEUE_ENABLED").getValue());
    assertEquals("4", env(c, "KNOTLESS_RECONCILER_QUEUE_BATCH").getValue());
    assertEquals("2", env(c, "KNOTLESS_RECONCILER_QUEUE_DEPTH").getValue());
    Container ingester = ChartTest.pod(queue, "ingester").getContainers().get(0);
    assertEquals("true", env(ingester, "KNOTLESS_INGESTER_QUEUE").getValue());
    // Off by default: neither service hears of it.
    Container plain = ChartTest.pod(all, "reconciler").getContainers().get(0);
    assertTrue(
        plain.getEnv().stream().noneMatch(e -> e.getName().contains("_QUEUE_")),
        plain.getEnv().toString());

    RuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            RuntimeException.class,
            () ->
                RenderedChart.render(
                    List.of(RenderedChart.resource("all-features.yaml")),
                    Map.of("queue.enabled", "true", "pulls", "false")));
    assertTrue(
        String.valueOf(e.getMessage()).contains("queue.enabled needs pulls"), e.getMessage());
  }

  @Test
  void anEmptyListRendersAndAChangedListRollsTheReconcilers() {
    RenderedChart none = RenderedChart.render();
    ConfigMap empty =
        none.typed(ConfigMap.class).stream()
            .filter(m -> m.getMetadata().getName().equals("ci-knotless-run-repositories"))
            .findFirst()
            .orElseThrow();
    assertTrue(empty.getData().get("repos.txt").lines().allMatch(l -> l.startsWith("#")));
    String before = checksum(all);
    String after =
        checksum(
            RenderedChart.render(
                List.of(RenderedChart.resource("all-features.yaml")),
                Map.of("repositories[0]", "alice.example.com/other")));
    assertNotEquals(before, after);
  }

  @Test
  void anEntryInAnotherFormatOrDiscoveryOrPullsWithoutAnAppviewFailsTheRender() {
    RuntimeException bad =
        assertThrows(
            RuntimeException.class,
            () ->
                RenderedChart.render(
                    List.of(), Map.of("repositories[0]", "did:plc:abc/3jzfcijpj2z2a=site")));
    // The values schema refuses it first, naming the entry.
    assertTrue(
        bad.getMessage().contains("repositories/0")
            && bad.getMessage().contains("did:plc:abc/3jzfcijpj2z2a=site"),
        bad.getMessage());
    RuntimeException blind =
        assertThrows(
            RuntimeException.class,
            () -> RenderedChart.render(List.of(), Map.of("discover", true)));
    assertTrue(blind.getMessage().contains("discover needs appview"), blind.getMessage());
    RuntimeException noPulls =
        assertThrows(
            RuntimeException.class, () -> RenderedChart.render(List.of(), Map.of("pulls", true)));
    assertTrue(noPulls.getMessage().contains("pulls needs appview"), noPulls.getMessage());
  }

  @Test
  void theRunnersKeyIsMountedReadOnlyByReferenceOnlyIntoTheServiceThatPlansRunsWithSteps() {
    // The scheduler alone: the reconcilers only queue runs, whose steps they never plan.
    assertKeyOnlyIn(all, "scheduler", "KNOTLESS_SCHEDULER_SECRETS_KEY_FILE");
    assertKeyOnlyIn(
        RenderedChart.render(
            List.of(),
            Map.of("runnerKey.existingSecret", "runner-key", "appview", "https://a.example")),
        "scheduler",
        "KNOTLESS_SCHEDULER_SECRETS_KEY_FILE");
    // Unset, or with the scheduler off, no service gets one.
    for (RenderedChart c :
        List.of(
            RenderedChart.render(),
            RenderedChart.render(
                List.of(),
                Map.of("runnerKey.existingSecret", "runner-key", "scheduler.enabled", false)))) {
      c.podSpecs()
          .forEach(
              (name, pod) ->
                  assertTrue(
                      pod.getVolumes().stream().noneMatch(v -> v.getName().equals("runner-key")),
                      name));
    }
  }

  private static void assertKeyOnlyIn(RenderedChart chart, String component, String envName) {
    chart
        .podSpecs()
        .forEach(
            (name, pod) -> {
              boolean holds =
                  pod.getVolumes().stream().anyMatch(v -> v.getName().equals("runner-key"));
              assertEquals(name.endsWith("-" + component), holds, name);
            });
    PodSpec pod = ChartTest.pod(chart, component);
    Volume v =
        pod.getVolumes().stream()
            .filter(x -> x.getName().equals("runner-key"))
            .findFirst()
            .orElseThrow();
    assertEquals("runner-key", v.getSecret().getSecretName());
    assertEquals(0400, v.getSecret().getDefaultMode());
    Container c = pod.getContainers().get(0);
    assertEquals("/etc/knotless/runner-key/secrets-key.json", env(c, envName).getValue());
    assertTrue(
        c.getVolumeMounts().stream()
            .anyMatch(
                m -> m.getName().equals("runner-key") && Boolean.TRUE.equals(m.getReadOnly())));
    // The key is a file, never a value in the pod spec.
    assertTrue(
        c.getEnv().stream()
            .allMatch(
                e ->
                    e.getValueFrom() == null
                        || e.getValueFrom().getSecretKeyRef() == null
                        || !"runner-key".equals(e.getValueFrom().getSecretKeyRef().getName())));
  }

  private static String checksum(RenderedChart chart) {
    return ChartTest.pod(chart, "reconciler") == null
        ? null
        : chart.typed(io.fabric8.kubernetes.api.model.apps.Deployment.class).stream()
            .filter(d -> d.getMetadata().getName().equals("ci-knotless-run-reconciler"))
            .findFirst()
            .orElseThrow()
            .getSpec()
            .getTemplate()
            .getMetadata()
            .getAnnotations()
            .get("checksum/repositories");
  }
}
