package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alert rules, as rendered, loaded by Prometheus' own promtool (Debian's package,
 * installed by testing/prometheus/install.sh when missing): {@code promtool check rules} takes
 * every rule, and {@code promtool test rules} makes three of them fire on series as the services
 * export them (two reconcilers reporting the same waiting Main run, a dead letter, no scheduler
 * leading) and keeps a fourth quiet.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AlertRulesPromtoolTest {
  @TempDir Path dir;
  private JsonNode spec;

  @BeforeAll
  void render() throws Exception {
    Path root = RenderedChart.chartDir().getParent().getParent();
    Process install =
        new ProcessBuilder("bash", root.resolve("testing/prometheus/install.sh").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, install.waitFor(), "testing/prometheus/install.sh: " + out);
    spec =
        RenderedChart.render("all-features.yaml")
            .ofKind("PrometheusRule")
            .get(0)
            .tree()
            .get("spec");
  }

  @Test
  void promtoolLoadsEveryRule() throws Exception {
    Path rules = rules();
    String out = promtool("check", "rules", rules.toString());
    int count = 0;
    for (JsonNode g : spec.path("groups")) {
      count += g.path("rules").size();
    }
    assertTrue(out.contains("SUCCESS: " + count + " rules found"), out);
  }

  @Test
  void theMainWaitDeadLetterAndNoLeaderAlertsFireOnSeriesAsExported() throws Exception {
    rules();
    ObjectNode test = RenderedChart.YAML.createObjectNode();
    test.putArray("rule_files").add("rules.yml");
    test.put("evaluation_interval", "1m");
    ObjectNode t = test.putArray("tests").addObject();
    t.put("interval", "1m");
    ArrayNode input = t.putArray("input_series");
    // Both reconcilers report the one waiting Main run for 40 minutes, as they do (max, not sum).
    for (String pod : List.of("reconciler-1", "reconciler-2")) {
      input
          .addObject()
          .put(
              "series",
              "knotless_run_runs_waiting{class=\"main\",reason=\"job\",pod=\"" + pod + "\"}")
          .put("values", "1x40");
    }
    input
        .addObject()
        .put("series", "knotless_run_check_writer_dead_letters_total{reason=\"invalid\"}")
        .put("values", "0x30 1x10"); // one set aside at minute 31
    input
        .addObject()
        .put("series", "knotless_run_scheduler_leader{pod=\"scheduler-1\"}")
        .put("values", "0x40");
    input
        .addObject()
        .put("series", "knotless_run_passes_total{outcome=\"ok\"}")
        .put("values", "0+10x40");
    input
        .addObject()
        .put("series", "knotless_run_passes_total{outcome=\"failed\"}")
        .put("values", "0x40");
    ArrayNode expected = t.putArray("alert_rule_test");
    for (var e :
        Map.of(
                "KnotlessRunMainRunWaiting", "warning",
                "KnotlessRunDeadLetters", "warning",
                "KnotlessRunNoSchedulerLeader", "critical")
            .entrySet()) {
      ObjectNode a = expected.addObject().put("eval_time", "35m").put("alertname", e.getKey());
      ObjectNode alert = a.putArray("exp_alerts").addObject();
      alert.putObject("exp_labels").put("severity", e.getValue());
      alert.set("exp_annotations", annotations(e.getKey()));
    }
    // No pass failed: that alert stays quiet.
    expected
        .addObject()
        .put("eval_time", "35m")
        .put("alertname", "KnotlessRunPassesFailing")
        .putArray("exp_alerts");
    Path file = dir.resolve("alerts-test.yml");
    RenderedChart.YAML.writeValue(file.toFile(), test);
    String out = promtool("test", "rules", file.toString());
    assertTrue(out.contains("SUCCESS"), out);
  }

  private JsonNode annotations(String alert) {
    for (JsonNode g : spec.path("groups")) {
      for (JsonNode r : g.path("rules")) {
        if (alert.equals(r.path("alert").asText())) {
          return r.path("annotations");
        }
      }
    }
    throw new AssertionError("no alert " + alert);
  }

  /** The rendered groups as a Prometheus rules file, rules.yml in the test's directory. */
  private Path rules() throws IOException {
    Path file = dir.resolve("rules.yml");
    RenderedChart.YAML.writeValue(file.toFile(), spec);
    return file;
  }

  private static String promtool(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + ":\n" + out);
    return out;
  }
}
