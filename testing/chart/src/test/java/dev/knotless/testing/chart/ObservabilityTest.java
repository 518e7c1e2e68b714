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
import java.nio.file.Path;
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
          "knotless_run_runs_ended_total",
          "knotless_run_runs_queue_wait_seconds_bucket",
          "knotless_run_runs_duration_seconds_bucket",
          "knotless_run_doorbells_published_total",
          "knotless_run_doorbells_received_total",
          "knotless_run_doorbells_failed_total",
          "knotless_run_pass_duration_seconds_bucket",
          "knotless_run_pds_requests_total",
          "knotless_run_pds_request_seconds_bucket",
          "knotless_run_check_writer_lag_seconds_bucket",
          "knotless_run_check_writer_dead_letters_total",
          "knotless_run_pods",
          "knotless_run_pod_start_seconds_bucket",
          "knotless_run_pod_image_pull_seconds_bucket",
          "knotless_run_pod_image_pull_failures_total",
          "knotless_run_scheduler_leader");

  /**
   * The table of every name the services export, by service (docs/metrics.md);
   * testing/distributed's ObservabilityIT holds it to what the running services' /q/metrics show,
   * both ways.
   */
  static final Path EXPORTED =
      RenderedChart.chartDir().getParent().getParent().resolve("docs/metrics.md");

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
    Set<String> unexported = new TreeSet<>(used);
    unexported.removeAll(exported());
    assertEquals(Set.of(), unexported, "panels read names no service is checked to export");
  }

  @Test
  void everyAlertReadsANameAServiceIsCheckedToExport() {
    Set<String> unexported = new TreeSet<>();
    for (String expr : alertQueries()) {
      unexported.addAll(PromQl.metricNames(expr));
    }
    unexported.remove("up"); // Prometheus' own, per scrape target
    unexported.removeAll(exported());
    assertEquals(Set.of(), unexported, "alerts read names no service is checked to export");
  }

  /** Every sample name some service exports, by docs/metrics.md (a histogram's four each). */
  static Set<String> exported() {
    return dev.knotless.testing.MetricsTable.read(EXPORTED.getParent().getParent()).allSamples();
  }

  private List<String> alertQueries() {
    List<String> exprs = new ArrayList<>();
    for (var group : allFeatures.typed(PrometheusRule.class).get(0).getSpec().getGroups()) {
      for (var r : group.getRules()) {
        exprs.add(r.getExpr().getStrVal());
      }
    }
    return exprs;
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
                "KnotlessRunCheckWriterLagHigh",
                "KnotlessRunNoSchedulerLeader",
                "KnotlessRunPodsStartSlowly",
                "KnotlessRunImagePullsFailing",
                "KnotlessRunDoorbellsFailing",
                "KnotlessRunDeadLetters",
                "KnotlessRunPdsErrors")),
        alerts.toString());
    String waiting = rule.getSpec().getGroups().get(0).getRules().get(0).getExpr().getStrVal();
    assertTrue(waiting.contains("class=\"main\"") && waiting.contains("[30m"), waiting);
  }

  @Test
  void everyAlertLinksItsRunbookSectionInOperationsMd() throws IOException {
    String runbooks =
        Files.readString(
            RenderedChart.chartDir().getParent().getParent().resolve("docs/operations.md"));
    Set<String> sections = new TreeSet<>();
    for (String line : runbooks.split("\n")) {
      if (line.startsWith("## ")) {
        sections.add(line.substring(3).strip().toLowerCase(java.util.Locale.ROOT));
      }
    }
    PrometheusRule rule = allFeatures.typed(PrometheusRule.class).get(0);
    for (var group : rule.getSpec().getGroups()) {
      for (var r : group.getRules()) {
        String url = r.getAnnotations().get("runbook_url");
        assertEquals("docs/operations.md#" + r.getAlert().toLowerCase(java.util.Locale.ROOT), url);
        assertTrue(sections.contains(url.substring(url.indexOf('#') + 1)), r.getAlert());
      }
    }
  }

  @Test
  void theServiceMonitorScrapesQuarkusMetricsOnEveryService() {
    ServiceMonitor sm = allFeatures.typed(ServiceMonitor.class).get(0);
    var endpoint = sm.getSpec().getEndpoints().get(0);
    assertEquals("/q/metrics", endpoint.getPath());
    assertEquals("management", endpoint.getPort());
    var selector = sm.getSpec().getSelector().getMatchLabels();
    long scraped =
        allFeatures.typed(io.fabric8.kubernetes.api.model.Service.class).stream()
            .filter(s -> s.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
            .count();
    assertEquals(allFeatures.podSpecs().size(), scraped, "one scraped Service per Deployment");
    var scheduler =
        allFeatures.typed(io.fabric8.kubernetes.api.model.Service.class).stream()
            .filter(s -> s.getMetadata().getName().equals("ci-knotless-run-scheduler"))
            .findFirst()
            .orElseThrow();
    assertTrue(
        scheduler.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()),
        "the scheduler is scraped");
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
