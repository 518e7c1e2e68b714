package dev.knotless.testing.distributed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real Prometheus (Debian's package, installed by {@code testing/prometheus/install.sh} when
 * missing) on 127.0.0.1, scraping services' {@code /q/metrics} every second, each target with the
 * {@code namespace}, {@code service} and {@code pod} labels a ServiceMonitor gives it. Closing it
 * ends the process it started, by PID.
 */
public final class LocalPrometheus implements AutoCloseable {
  /** The namespace label every target gets, as the chart's release namespace. */
  public static final String NAMESPACE = "knotless";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final URI url;
  private final Path log;

  private LocalPrometheus(Process process, URI url, Path log) {
    this.process = process;
    this.url = url;
    this.log = log;
  }

  /**
   * Starts Prometheus in {@code dir} scraping {@code targets}: pod name to the service it is (the
   * service directory under services/) and its process.
   */
  public static LocalPrometheus start(
      Path root, Path dir, Map<String, Map.Entry<String, ServiceProcess>> targets)
      throws IOException, InterruptedException {
    ensureInstalled(root);
    Files.createDirectories(dir);
    StringBuilder config =
        new StringBuilder(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n");
    for (var t : targets.entrySet()) {
      URI metrics = t.getValue().getValue().managementUrl("/q/metrics");
      config
          .append("  - job_name: '")
          .append(t.getKey())
          .append("'\n    metrics_path: /q/metrics\n    static_configs:\n      - targets: ['")
          .append(metrics.getHost())
          .append(':')
          .append(metrics.getPort())
          .append("']\n        labels: {namespace: '")
          .append(NAMESPACE)
          .append("', service: 'knotless-run-")
          .append(t.getValue().getKey())
          .append("', pod: '")
          .append(t.getKey())
          .append("'}\n");
    }
    Path file = dir.resolve("prometheus.yml");
    Files.writeString(file, config);
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path log = dir.resolve("prometheus.log");
    Process p =
        new ProcessBuilder(
                "prometheus",
                "--config.file=" + file,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    LocalPrometheus prometheus =
        new LocalPrometheus(p, URI.create("http://127.0.0.1:" + port), log);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!prometheus.ready()) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        prometheus.close();
        throw new IOException("prometheus did not start: " + Files.readString(log));
      }
      Thread.sleep(200);
    }
    return prometheus;
  }

  /** Runs the harness's install script when either binary is missing. */
  public static void ensureInstalled(Path root) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("bash", root.resolve("testing/prometheus/install.sh").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("testing/prometheus/install.sh failed: " + out);
    }
  }

  private boolean ready() {
    try {
      return HTTP.send(
                  HttpRequest.newBuilder(url.resolve("/-/ready")).build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Where it listens. */
  public URI url() {
    return url;
  }

  /**
   * An instant query through the HTTP API: the result's series, each a {@code metric} and {@code
   * value}, empty when none.
   *
   * @throws IOException when Prometheus refuses the query (its error says why)
   */
  public List<JsonNode> query(String promql) throws IOException, InterruptedException {
    URI q = url.resolve("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(q).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    if (!"success".equals(body.path("status").asText())) {
      throw new IOException("prometheus refused " + promql + ": " + r.body());
    }
    List<JsonNode> out = new ArrayList<>();
    body.path("data").path("result").forEach(out::add);
    return out;
  }

  /** The single value of a query whose result is one series, or NaN when it has none. */
  public double value(String promql) throws IOException, InterruptedException {
    List<JsonNode> r = query(promql);
    if (r.isEmpty()) {
      return Double.NaN;
    }
    if (r.size() > 1) {
      throw new IOException(promql + " gave " + r.size() + " series: " + r);
    }
    return Double.parseDouble(r.get(0).path("value").get(1).asText());
  }

  /** Its log, for a failure's message. */
  public Path log() {
    return log;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
