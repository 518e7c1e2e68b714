package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The dashboard, the alerts and the scrape config query metrics the services actually export. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObservabilityTest {
  /**
   * Ours, plus what Micrometer's JVM, process and HTTP server binders and Prometheus itself export.
   */
  private static final List<String> KNOWN_PREFIXES =
      List.of("knotless_run_", "jvm_", "process_", "system_", "http_server_");

  private static final Set<String> PANELS_WANTED =
      Set.of(
          "knotless_run_runs_waiting",
          "knotless_run_runs_running",
          "knotless_run_doorbells_published_total",
          "knotless_run_doorbells_received_total",
          "knotless_run_pass_duration_seconds_sum",
          "knotless_run_pds_requests_total",
          "knotless_run_check_writer_lag");

  private RenderedChart allFeatures;
  private JsonNode dashboard;

  @BeforeAll
  void load() throws IOException {
    allFeatures = RenderedChart.render("all-features.yaml");
    dashboard =
        new ObjectMapper()
            .readTree(
                Files.readString(RenderedChart.chartDir().resolve("dashboards/knotless-run.json")));
  }

  @Test
  void theDashboardQueriesOnlyOurMetricsAndStandardOnes() {
    Set<String> used = new TreeSet<>();
    for (String expr : dashboardQueries()) {
      used.addAll(PromQl.metricNames(expr));
    }
    assertFalse(used.isEmpty());
    for (String metric : used) {
      assertTrue(KNOWN_PREFIXES.stream().anyMatch(metric::startsWith), "unknown metric " + metric);
    }
    assertTrue(used.containsAll(PANELS_WANTED), "missing panels: " + used);
  }

  @Test
  void theDashboardIsShippedVerbatimInAConfigMapGrafanaPicksUp() throws IOException {
    ConfigMap cm = allFeatures.typed(ConfigMap.class).get(0);
    assertEquals("1", cm.getMetadata().getLabels().get("grafana_dashboard"));
    JsonNode shipped = new ObjectMapper().readTree(cm.getData().get("knotless-run.json"));
    assertEquals(dashboard, shipped);
    Set<Integer> ids = new TreeSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertTrue(ids.add(panel.path("id").asInt()), "duplicate panel id " + panel.path("id"));
    }
  }

  @Test
  void theAlertsQueryOnlyOurMetricsAndCoverWaitingFailingPassesAndLag() {
    PrometheusRule rule = allFeatures.typed(PrometheusRule.class).get(0);
    Set<String> alerts = new TreeSet<>();
    for (var group : rule.getSpec().getGroups()) {
      for (var r : group.getRules()) {
        alerts.add(r.getAlert());
        for (String metric : PromQl.metricNames(r.getExpr().getStrVal())) {
          assertTrue(
              metric.equals("up") || KNOWN_PREFIXES.stream().anyMatch(metric::startsWith),
              r.getAlert() + " queries " + metric);
        }
      }
    }
    assertTrue(
        alerts.containsAll(
            Set.of(
                "KnotlessRunMainRunWaiting",
                "KnotlessRunPassesFailing",
                "KnotlessRunCheckWriterLagHigh")),
        alerts.toString());
    String waiting = rule.getSpec().getGroups().get(0).getRules().get(0).getExpr().getStrVal();
    assertTrue(waiting.contains("class=\"main\"") && waiting.contains("[30m"), waiting);
  }

  @Test
  void theServiceMonitorScrapesQuarkusMetricsOnEveryService() {
    ServiceMonitor sm = allFeatures.typed(ServiceMonitor.class).get(0);
    var endpoint = sm.getSpec().getEndpoints().get(0);
    assertEquals("/q/metrics", endpoint.getPath());
    assertEquals("http", endpoint.getPort());
    var selector = sm.getSpec().getSelector().getMatchLabels();
    long scraped =
        allFeatures.typed(io.fabric8.kubernetes.api.model.Service.class).stream()
            .filter(s -> s.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
            .count();
    assertEquals(allFeatures.podSpecs().size(), scraped, "one scraped Service per Deployment");
  }

  @Test
  void metricNamesAreReadOffPromQlCorrectly() {
    assertEquals(
        Set.of("a_total", "b_seconds_count"),
        PromQl.metricNames(
            "sum by (x, y) (rate(a_total{m=\"v\", n=~\"$ns\"}[$__rate_interval])) /"
                + " on (x) sum(rate(b_seconds_count[5m])) > 0.5 and 1e3"));
  }

  private List<String> dashboardQueries() {
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        exprs.add(target.path("expr").asText());
      }
    }
    Pattern labelValues = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      Matcher m = labelValues.matcher(variable.path("definition").asText());
      while (m.find()) {
        exprs.add(m.group(1));
      }
    }
    return exprs;
  }
}
