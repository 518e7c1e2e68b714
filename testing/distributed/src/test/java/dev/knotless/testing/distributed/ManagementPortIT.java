package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.kubelet.KubeApiServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each service's packaged jar, started as the chart starts it: {@code /q/health} and {@code
 * /q/metrics} answer on the management port and not on the service's own port, so the NetworkPolicy
 * and the scrape can name the one port and leave the other closed.
 */
class ManagementPortIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final List<String> PATHS =
      List.of("/q/health", "/q/health/live", "/q/health/ready", "/q/metrics");

  @Test
  void everyServiceAnswersHealthAndMetricsOnItsManagementPortOnly() throws Exception {
    try (KubeApiServer api = KubeApiServer.start();
        LocalDistributed shape =
            LocalDistributed.start(
                LocalDistributed.projectRoot(), Files.createTempDirectory("management-it"))) {
      shape.ownerRepo("app", Map.of("README.md", "hello\n"));
      Map<String, ServiceProcess> services =
          Map.of(
              "ingester", shape.startIngester(),
              "reconciler", shape.startReconciler(),
              "check-writer", shape.startCheckWriter(),
              "scheduler",
                  shape.startScheduler(
                      api.url(), "management-it", "runs", "gvisor", LocalDocker.BUSYBOX, Map.of()));
      for (var e : services.entrySet()) {
        ServiceProcess s = e.getValue();
        assertNotEquals(s.serviceUrl("/").getPort(), s.managementUrl("/").getPort(), e.getKey());
        for (String path : PATHS) {
          assertEquals(200, status(s.managementUrl(path)), e.getKey() + " management " + path);
          assertEquals(404, status(s.serviceUrl(path)), e.getKey() + " service port " + path);
        }
        assertTrue(
            body(s.managementUrl("/q/metrics")).contains("jvm_memory_used_bytes"),
            e.getKey() + " exports its metrics on the management port");
      }
      // What the chart's autoscaling reads (docs/helm.md, Scaling): the doorbells' backlog and
      // the queue's waiting runs, on the management port.
      String reconciler = body(services.get("reconciler").managementUrl("/q/metrics"));
      assertTrue(reconciler.contains("knotless_run_doorbells_waiting"), reconciler);
      assertTrue(
          reconciler.contains("knotless_run_runs_waiting{class=\"main\",reason=\"job\"}"),
          reconciler);
    }
  }

  private static int status(URI uri) throws IOException, InterruptedException {
    return HTTP.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static String body(URI uri) throws IOException, InterruptedException {
    return HTTP.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
