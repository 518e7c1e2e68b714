package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local distributed shape with traces on, exporting to the harness's OTLP receiver: one push is
 * one trace, from the ingester's doorbell for its frame through the reconciler's pass and the run
 * it queued, the scheduler's run in its pod, to the check-writer filing each of the run's events,
 * every span a child of another in the same trace.
 */
class TracesIT {
  static final Duration BOUND = Duration.ofSeconds(150);
  static final String CI =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: hello
          run: |
            echo "trace settings in the pod: $(env | grep -ci -e otel -e traceparent)"
      """;
  static final Set<String> SERVICES = Set.of("ingester", "reconciler", "scheduler", "check-writer");

  private static LocalDistributed shape;
  private static LocalOtlp otlp;
  private static OwnerRepo owner;
  private static ServiceProcess reconciler;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("traces-it");
    otlp = LocalOtlp.start();
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir).withTraces(otlp.endpoint());
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    shape.startCheckWriter();
    reconciler = shape.startReconciler();
    shape.startScheduler();
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    try {
      if (shape != null) {
        shape.close();
      }
    } finally {
      if (otlp != null) {
        otlp.close();
      }
    }
  }

  @Test
  void onePushIsOneTraceAcrossTheFourServices() throws Exception {
    Checks.await(BOUND, "the baseline pass", () -> Checks.passes(reconciler) >= 1);
    assertEquals(List.of(), Checks.all(shape), "the baseline runs nothing");
    assertEquals(List.of(), otlp.refused(), "every export so far was OTLP protobuf");

    // A first push may be answered by the pass the ingester's connect rang (it rings every door
    // as it connects, and the pass can begin after the push): that pass follows no frame. Once its
    // check has ended, the connect is long answered, and the next push is rung by its frame.
    owner.commit(Map.of("README.md", "hello, first\n"));
    String first = owner.push("main");
    Checks.awaitOne(shape, BOUND, c -> c.status().ended() && c.commit().equals(first));

    owner.commit(Map.of("README.md", "hello, traced\n"));
    String sha = owner.push("main");
    Record ended = Checks.awaitOne(shape, BOUND, c -> c.status().ended() && c.commit().equals(sha));
    CheckRecord check = CheckRecord.fromJson(ended.value());
    assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
    String log = Checks.log(shape, check);
    assertTrue(
        log.contains("trace settings in the pod: 0\n"), "no trace context in the pod: " + log);

    // The trace whose run is this check's, once its last span (the ended event's) is in.
    try {
      Checks.await(
          Duration.ofSeconds(30),
          "the push's trace to hold the spans of all four services and the ended event's",
          () -> {
            List<LocalOtlp.Received> t = traceOf(ended.rkey());
            // Each service exports in batches: the ended event's span may come a batch after the
            // rest, though its check is already filed.
            return t != null && services(t).equals(SERVICES) && endedEvent(t);
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; received: " + otlp.spans(), e);
    }
    List<LocalOtlp.Received> trace = traceOf(ended.rkey());
    Map<String, Set<String>> names =
        trace.stream()
            .collect(
                Collectors.groupingBy(
                    LocalOtlp.Received::service,
                    Collectors.mapping(
                        LocalOtlp.Received::name, Collectors.toCollection(TreeSet::new))));
    assertEquals(Set.of("doorbell"), names.get("ingester"), trace.toString());
    assertEquals(Set.of("reconcile pass", "run queued"), names.get("reconciler"), trace.toString());
    assertEquals(Set.of("run"), names.get("scheduler"), trace.toString());
    assertEquals(Set.of("check event"), names.get("check-writer"), trace.toString());

    // One root, the ingester's doorbell for the push's frame; every other span's parent is a span
    // of the same trace, so the trace is one tree, not four traces sharing an id.
    List<LocalOtlp.Received> roots =
        trace.stream().filter(s -> s.parentSpanId().isEmpty()).toList();
    assertEquals(1, roots.size(), "one root: " + trace);
    assertEquals("ingester", roots.get(0).service());
    Set<String> ids = trace.stream().map(LocalOtlp.Received::spanId).collect(Collectors.toSet());
    for (LocalOtlp.Received s : trace) {
      assertTrue(
          s.parentSpanId().isEmpty() || ids.contains(s.parentSpanId()),
          "a parent in the trace for " + s + " in " + trace);
    }
    String repo = owner.account.did() + "/" + owner.key();
    assertEquals(repo, roots.get(0).attributes().get("knotless.repo"));
    // The check-writer filed the run's events: filed, started and ended at least.
    long events = trace.stream().filter(s -> s.service().equals("check-writer")).count();
    assertTrue(events >= 3, "the check-writer's spans: " + trace);
    assertTrue(endedEvent(trace), "the ended event, which files the check's end: " + trace);
    // No other trace holds this run: the push was traced once.
    long holding =
        otlp.spans().stream()
            .filter(s -> ended.rkey().equals(s.attributes().get("knotless.check")))
            .map(LocalOtlp.Received::traceId)
            .distinct()
            .count();
    assertEquals(1, holding, "traces naming the run");
    assertEquals(List.of(), otlp.refused(), "every export was OTLP protobuf");
    System.out.printf("[TracesIT] one push, one trace of %d spans: %s%n", trace.size(), names);
  }

  /** The trace whose scheduler span ran the check {@code rkey}, or null before it is received. */
  private static List<LocalOtlp.Received> traceOf(String rkey) {
    return otlp.spans().stream()
        .filter(
            s ->
                s.service().equals("scheduler")
                    && rkey.equals(s.attributes().get("knotless.check")))
        .findFirst()
        .map(s -> otlp.trace(s.traceId()))
        .orElse(null);
  }

  /** Whether {@code trace} holds the check-writer's span of a run's ended event. */
  private static boolean endedEvent(List<LocalOtlp.Received> trace) {
    return trace.stream()
        .anyMatch(
            s ->
                s.service().equals("check-writer")
                    && "Ended".equals(s.attributes().get("knotless.event")));
  }

  private static Set<String> services(List<LocalOtlp.Received> trace) {
    return trace.stream().map(LocalOtlp.Received::service).collect(Collectors.toSet());
  }
}
