package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalRegistry;
import dev.knotless.testing.MetricsTable;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local distributed shape, two reconciler replicas, scraped by a real Prometheus while a push
 * passes, a pull waits for the one job and then passes, and a push fails. Every name each service
 * exports is in docs/metrics.md for it and every name there is exported; every query of the chart's
 * dashboard returns data through Prometheus' HTTP API; and the waiting-runs panel shows the number
 * of runs really waiting in the queue, though both replicas report them. The run image lives only
 * in a real registry, so the first pod's pull is scraped as the one image pull.
 */
class ObservabilityIT {
  static final Duration BOUND = Duration.ofSeconds(180);
  static final String CI =
      """
      on: {push: {refs: [main]}, pull: {base: [refs/heads/main]}}
      steps:
        - name: check
          run: |
            m=$(cat mode.txt 2>/dev/null || true)
            if [ "$m" = fail ]; then echo failing; exit 3; fi
            if [ "$m" = hold ]; then sleep 45; fi
            echo ok
      """;

  private static LocalDistributed shape;
  private static HarnessAppview appview;
  private static LocalPrometheus prometheus;
  private static LocalRegistry registry;
  private static OwnerRepo owner;
  private static final Map<String, Map.Entry<String, ServiceProcess>> pods = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("observability-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    appview = HarnessAppview.start(shape.pds().pdsUrl(), shape.pds().plcUrl());
    shape.withAppview(appview.url(), false);
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    owner.git("checkout", "-q", "-b", "feature", "main");
    owner.commit(Map.of("feature.txt", "a feature\n"));
    owner.push("feature");
    owner.git("checkout", "-q", "main");

    Map<String, String> reconciler =
        Map.of(
            "knotless.reconciler.pulls", "true", "knotless.reconciler.queue-gauge-refresh", "1s");
    put("check-writer-1", "check-writer", shape.startCheckWriter());
    put("reconciler-1", "reconciler", shape.startReconciler(reconciler));
    put("reconciler-2", "reconciler", shape.startReconciler(reconciler));
    // One job: the pull's run waits while the held push runs. The run image is in a registry
    // alone, so the first pod pulls it and the rest find it on the node.
    registry = LocalRegistry.start();
    put(
        "scheduler-1",
        "scheduler",
        shape.startScheduler(
            Map.of(
                "knotless.scheduler.jobs",
                "1",
                "knotless.scheduler.run-image",
                registry.publish("observability-run", "1"))));
    put("ingester-1", "ingester", shape.startIngester(Map.of("knotless.ingester.pulls", "true")));
    prometheus = LocalPrometheus.start(LocalDistributed.projectRoot(), dir.resolve("prom"), pods);
  }

  private static void put(String pod, String service, ServiceProcess process) {
    pods.put(pod, new AbstractMap.SimpleEntry<>(service, process));
  }

  @AfterAll
  static void stop() {
    try {
      if (prometheus != null) {
        prometheus.close();
      }
    } finally {
      if (shape != null) {
        shape.close();
      }
      if (appview != null) {
        appview.close();
      }
      if (registry != null) {
        registry.close();
      }
    }
  }

  @Test
  void aRealPrometheusReadsEveryPanelAndTheWaitingPanelCountsEachRunOnce() throws Exception {
    Checks.await(
        BOUND, "the first pass", () -> Checks.passes(pods.get("reconciler-1").getValue()) >= 1);

    owner.commit(Map.of("mode.txt", "hold\n"));
    String held = owner.push("main");
    Checks.awaitOne(
        shape, BOUND, c -> c.commit().equals(held) && c.status() == CheckStatus.RUNNING);
    String pull = new PullAuthor(owner).open(owner, "main", owner, "feature");

    // While the held run has the one job, the pull's run waits: the panel shows it once.
    String panel = waitingPanel();
    Checks.await(
        BOUND,
        "the waiting-runs panel to show the queue's waiting runs",
        () -> {
          long before = trulyWaiting();
          double shown = sum(prometheus.query(panel));
          return before > 0 && trulyWaiting() == before && shown == before;
        });
    long waiting = trulyWaiting();
    assertEquals(1, waiting, "the pull's run waits for the held push's job");
    // Each replica reports the whole queue, so once both have read it a sum counts it twice,
    // while the panel still shows it once.
    Checks.await(
        BOUND,
        "both replicas to report the waiting run",
        () -> prometheus.value("sum(knotless_run_runs_waiting)") == 2.0 * waiting);
    assertEquals(waiting, sum(prometheus.query(panel)), "the panel, with both replicas reporting");
    assertEquals(waiting, trulyWaiting(), "the pull's run still waits");

    CheckRecord heldCheck = ended(c -> c.commit().equals(held));
    assertEquals(CheckStatus.SUCCESS, heldCheck.status(), heldCheck.toString());
    CheckRecord pulled = ended(c -> pull.equals(c.pull()));
    assertEquals(CheckStatus.SUCCESS, pulled.status(), pulled.toString());
    owner.commit(Map.of("mode.txt", "fail\n"));
    String failing = owner.push("main");
    CheckRecord failed = ended(c -> c.commit().equals(failing));
    assertEquals(CheckStatus.FAILURE, failed.status(), failed.toString());

    // A workflow whose image the registry lacks: its pod cannot pull it, and the check says so.
    String missing = registry.reference("missing", "1");
    owner.commit(Map.of(".knotless/workflows/ci.yml", "image: " + missing + "\n" + CI));
    String unpullable = owner.push("main");
    CheckRecord errored = ended(c -> c.commit().equals(unpullable));
    assertEquals(CheckStatus.ERROR, errored.status(), errored.toString());
    String log = Checks.log(shape, errored);
    assertTrue(
        log.contains("could not pull image " + missing + ": ErrImagePull")
            && log.contains("manifest for " + missing + " not found"),
        log);
    // Its steps are filed as the all-in-one files them: skipped, saying why.
    assertPullSkipped(errored, missing);
    // The owner's open pull is trusted, so main's moving runs it again: when its workflow is
    // read with main's change, its pod cannot pull its image either. The failures to count are
    // the runs that say so.
    CheckRecord pullAgain = ended(c -> pull.equals(c.pull()) && unpullable.equals(c.baseCommit()));
    double unpulled = 1 + (pullSkipped(pullAgain, missing) ? 1 : 0);

    // What each service exports, over its replicas, is what docs/metrics.md gives it, both ways.
    // (A reconciler that holds no doorbell partition has made no pass and exports no pass series.)
    MetricsTable table = MetricsTable.read(LocalDistributed.projectRoot());
    Map<String, java.util.Set<String>> exported = new LinkedHashMap<>();
    for (var pod : pods.values()) {
      exported
          .computeIfAbsent(pod.getKey(), k -> new java.util.TreeSet<>())
          .addAll(ExportedMetrics.names(pod.getValue().metrics()));
    }
    List<String> disagreements = new ArrayList<>();
    exported.forEach((service, names) -> disagreements.addAll(table.disagreements(service, names)));
    assertEquals(List.of(), disagreements);

    // Prometheus has scraped the failure, and two samples of each series for every rate.
    Checks.await(
        BOUND,
        "Prometheus to have scraped the failed run",
        () ->
            prometheus.value(
                    "sum(knotless_run_runs_ended_total{outcome=\"failure\",kind=\"push\"})")
                == 1.0);
    assertEquals(
        1.0,
        prometheus.value("sum(knotless_run_runs_ended_total{outcome=\"success\",kind=\"pull\"})"));
    Checks.await(
        BOUND,
        "Prometheus to have scraped one pull failure for each run that could not pull its image",
        () -> prometheus.value("sum(knotless_run_pod_image_pull_failures_total)") == unpulled);
    // The first pod pulled the run image; the others found it on the node and add no pull.
    Checks.await(
        BOUND,
        "Prometheus to have scraped the image pull",
        () -> prometheus.value("sum(knotless_run_pod_image_pull_seconds_count)") == 1.0);
    double pullSeconds = prometheus.value("sum(knotless_run_pod_image_pull_seconds_sum)");
    assertTrue(pullSeconds > 0, "the pull took " + pullSeconds + " s");
    assertTrue(
        prometheus.value("sum(knotless_run_pod_start_seconds_count)") >= 3.0,
        "every run's pod started");
    List<String> empty = new ArrayList<>();
    Checks.await(
        Duration.ofSeconds(60),
        "every dashboard query to return data",
        () -> {
          empty.clear();
          for (String expr : dashboardQueries()) {
            if (prometheus.query(expr).isEmpty()) {
              empty.add(expr);
            }
          }
          return empty.isEmpty();
        });
    System.out.printf(
        "[ObservabilityIT] %d dashboard queries answered by Prometheus; queue wait p95 %.3f s;"
            + " image pull %.3f s%n",
        dashboardQueries().size(),
        prometheus.value(
            "histogram_quantile(0.95, sum by (le) (rate("
                + "knotless_run_runs_queue_wait_seconds_bucket[5m])))"),
        pullSeconds);
  }

  /** An ended check matching {@code matches}. */
  /** Every step of {@code c} skipped, its note naming the image that could not be pulled. */
  private static void assertPullSkipped(CheckRecord c, String image) {
    assertTrue(pullSkipped(c, image), c.steps().toString());
  }

  /** Whether {@code c} ended as error with every step skipped for want of {@code image}. */
  private static boolean pullSkipped(CheckRecord c, String image) {
    return c.status() == CheckStatus.ERROR
        && !c.steps().isEmpty()
        && c.steps().stream()
            .allMatch(
                s ->
                    s.status() == dev.knotless.runner.check.StepResult.Status.SKIPPED
                        && s.note() != null
                        && s.note().startsWith("not run: could not pull image " + image));
  }

  private static CheckRecord ended(java.util.function.Predicate<CheckRecord> matches)
      throws Exception {
    return CheckRecord.fromJson(
        Checks.awaitOne(shape, BOUND, c -> matches.test(c) && c.status().ended()).value());
  }

  /** Runs waiting in the queue in PostgreSQL, the truth the panel must show. */
  private static long trulyWaiting() throws Exception {
    try (Connection c =
            DriverManager.getConnection(shape.postgres().jdbcUrl(), "postgres", "postgres");
        ResultSet r =
            c.createStatement()
                .executeQuery("select count(*) from run_queue where state = 'WAITING'")) {
      r.next();
      return r.getLong(1);
    }
  }

  private static double sum(List<JsonNode> series) {
    return series.stream().mapToDouble(s -> s.path("value").get(1).asDouble()).sum();
  }

  /** The dashboard's expressions, as Grafana sends them for this namespace over five minutes. */
  static List<String> dashboardQueries() throws Exception {
    JsonNode dashboard =
        new ObjectMapper()
            .readTree(
                LocalDistributed.projectRoot()
                    .resolve("charts/knotless-run/dashboards/knotless-run.json")
                    .toFile());
    List<String> out = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.add(
            target
                .path("expr")
                .asText()
                .replace("$namespace", LocalPrometheus.NAMESPACE)
                .replace("$__rate_interval", "5m"));
      }
    }
    return out;
  }

  /** The expression of the panel titled "Runs waiting...". */
  private static String waitingPanel() throws Exception {
    JsonNode dashboard =
        new ObjectMapper()
            .readTree(
                LocalDistributed.projectRoot()
                    .resolve("charts/knotless-run/dashboards/knotless-run.json")
                    .toFile());
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("title").asText().startsWith("Runs waiting")) {
        return panel
            .path("targets")
            .get(0)
            .path("expr")
            .asText()
            .replace("$namespace", LocalPrometheus.NAMESPACE);
      }
    }
    throw new AssertionError("no Runs waiting panel");
  }
}
