package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Traces are off unless traces.otlpEndpoint names an endpoint; then every service sends there. */
class TracesChartTest {
  static final Set<String> SERVICES =
      Set.of(
          "ci-knotless-run-ingester",
          "ci-knotless-run-reconciler",
          "ci-knotless-run-scheduler",
          "ci-knotless-run-check-writer");

  @Test
  void byDefaultNoServiceIsToldToTrace() {
    RenderedChart defaults = RenderedChart.render(List.of(), Map.of());
    assertEquals(SERVICES, defaults.podSpecs().keySet());
    defaults
        .podSpecs()
        .forEach((name, spec) -> assertEquals(Map.of(), otel(spec), name + " has no otel setting"));
  }

  @Test
  void oneValueTurnsTracesOnInEveryService() {
    String endpoint = "http://otel-collector.observability:4318";
    RenderedChart traced = RenderedChart.render(List.of(), Map.of("traces.otlpEndpoint", endpoint));
    assertEquals(SERVICES, traced.podSpecs().keySet());
    traced
        .podSpecs()
        .forEach(
            (name, spec) ->
                assertEquals(
                    Map.of(
                        "QUARKUS_OTEL_SDK_DISABLED",
                        "false",
                        "QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                        endpoint),
                    otel(spec),
                    name));
  }

  @Test
  void anEndpointThatIsNoHttpUrlIsRefused() {
    for (String bad : List.of("otel-collector:4318", "http://a b", "file:///etc/passwd")) {
      var e =
          assertThrows(
              RuntimeException.class,
              () -> RenderedChart.render(List.of(), Map.of("traces.otlpEndpoint", bad)),
              bad);
      assertTrue(String.valueOf(e.getMessage()).contains("otlpEndpoint"), e.getMessage());
    }
  }

  private static Map<String, String> otel(PodSpec spec) {
    Map<String, String> out = new TreeMap<>();
    for (EnvVar v : spec.getContainers().get(0).getEnv()) {
      if (v.getName().startsWith("QUARKUS_OTEL") || v.getName().startsWith("OTEL_")) {
        out.put(v.getName(), v.getValue());
      }
    }
    return out;
  }
}
