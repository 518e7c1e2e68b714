package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Private repositories' space host: named to the three services that read or file them, with the
 * reconcilers' poll; the ingester, which reads no space, gets neither; unset, no service gets it.
 */
class PrivateReposChartTest {
  private static final List<String> READING = List.of("reconciler", "scheduler", "check-writer");

  @Test
  void theSpaceHostReachesTheServicesThatReadAndFilePrivateRepositories() {
    RenderedChart chart =
        RenderedChart.render(
            List.of(RenderedChart.resource("all-features.yaml")),
            Map.of(
                "privateRepos.spaceHost", "https://spaces.example.test",
                "privateRepos.poll", "30s"));
    for (String component : READING) {
      Container c = ChartTest.pod(chart, component).getContainers().get(0);
      assertEquals(
          "https://spaces.example.test",
          ChartTest.env(c, "KNOTLESS_SPACE_HOST").getValue(),
          component);
    }
    Container r = ChartTest.pod(chart, "reconciler").getContainers().get(0);
    assertEquals("30s", ChartTest.env(r, "KNOTLESS_RECONCILER_POLL").getValue());
    Container ingester = ChartTest.pod(chart, "ingester").getContainers().get(0);
    assertTrue(
        ingester.getEnv().stream().map(EnvVar::getName).noneMatch("KNOTLESS_SPACE_HOST"::equals),
        ingester.getEnv().toString());
  }

  @Test
  void unsetNoServiceIsToldOfASpaceHost() {
    RenderedChart chart = RenderedChart.render("all-features.yaml");
    for (String component : READING) {
      Container c = ChartTest.pod(chart, component).getContainers().get(0);
      assertTrue(
          c.getEnv().stream()
              .map(EnvVar::getName)
              .noneMatch(
                  n -> n.equals("KNOTLESS_SPACE_HOST") || n.equals("KNOTLESS_RECONCILER_POLL")),
          component);
    }
  }
}
