package dev.knotless.bench;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.Topics;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.testing.Account;
import dev.knotless.testing.distributed.LocalDistributed;
import dev.knotless.testing.distributed.ServiceProcess;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The distributed shape beside the all-in-one runner, on one reference PDS and with the same number
 * of watched repositories: the time from a ref write to the check filed running (ingester, broker,
 * reconciler pass, worker, run events, check-writer), and how many passes a second the reconcilers
 * make when every door is rung at once, with the PDS requests each pass costs (from {@code
 * knotless.run.pds.requests}). Then the same with a second reconciler replica. The services run as
 * processes from their built jars. Prints a table. Run: {@code bin/bench Distributed [pushes (5)]
 * [repositories (1000)] [replicas (2)] [rings (3)]}.
 */
public final class DistributedBench {
  private static final String PASSES = "knotless_run_passes_total";
  private static final String PASSES_OK = "knotless_run_passes_total{outcome=\"ok\"";
  private static final String PDS_REQUESTS = "knotless_run_pds_requests_total";
  private static final Duration SETTLED = Duration.ofSeconds(5);
  private static final Duration MAX = Duration.ofMinutes(20);

  /** What every measure works on: the shape, its pushed and idle repositories, how much to do. */
  private record Stage(
      LocalDistributed shape,
      ServiceProcess writer,
      OwnerRepo pushed,
      Account owner,
      List<IdleRepos.Repo> idle,
      int pushes,
      int rings) {}

  /** What one shape measured. */
  record Figured(
      PushTimer.Times times,
      double requestsPerPush,
      Map<String, Long> byMethod,
      long startNanos,
      Rings rings,
      int reconcilers) {}

  /** Every door rung at once: how long until every pass ended, and what they cost. */
  record Ring(int count, long wallNanos, double requestsPerPass, int failed) {}

  /** The same ring made a few times over. */
  record Rings(List<Ring> each) {
    long[] walls() {
      return each.stream().mapToLong(Ring::wallNanos).toArray();
    }

    double requestsPerPass() {
      return each.stream().mapToDouble(Ring::requestsPerPass).average().orElse(0);
    }

    int failed() {
      return each.stream().mapToInt(Ring::failed).sum();
    }
  }

  private DistributedBench() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int replicas = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int rings = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    Path dir = Files.createTempDirectory("knotless-bench-distributed");
    say("logs and data in " + dir);
    List<Figured> shapes = new ArrayList<>();
    TriggerBench.Pushes aioPushes;
    TriggerBench.Sweep aioSweep;
    // Passes are what is measured here, as before the docker executor: steps run as processes.
    try (LocalDistributed shape =
        LocalDistributed.start(LocalDistributed.projectRoot(), dir).withShellExecutor()) {
      // The all-in-one half first, on the same PDS, while no service runs beside it.
      say("all-in-one: " + pushes + " pushes");
      aioPushes =
          TriggerBench.pushToRunning(
              shape.pds(), dir.resolve("aio-push"), 0, pushes, Duration.ZERO);
      say("all-in-one: the idle sweep of " + count + " repositories");
      aioSweep = TriggerBench.idleSweep(shape.pds(), dir.resolve("aio-sweep"), count);

      Account owner = shape.pds().createAccount("idle");
      List<IdleRepos.Repo> idle = IdleRepos.create(shape.pds().pdsUrl(), owner, count);
      for (IdleRepos.Repo r : idle) {
        shape.watch(owner.did(), r.key(), r.name());
      }
      OwnerRepo pushed = shape.ownerRepo("bench", PushTimer.FILES);
      int watched = count + 1;

      say("distributed: starting the check-writer, a reconciler and the ingester");
      ServiceProcess writer = shape.startCheckWriter();
      Stage stage = new Stage(shape, writer, pushed, owner, idle, pushes, rings);
      List<ServiceProcess> reconcilers = new ArrayList<>();
      long s0 = System.nanoTime();
      reconcilers.add(shape.startReconciler());
      // No sweep of the ingester's own during the measures.
      shape.startIngester(Map.of("knotless.ingester.sweep", "24h"));
      settle(reconcilers, watched);
      shapes.add(measure(stage, reconcilers, System.nanoTime() - s0));
      for (int n = 2; n <= replicas; n++) {
        say("distributed: adding reconciler " + n);
        s0 = System.nanoTime();
        reconcilers.add(shape.startReconciler());
        settle(reconcilers, watched);
        shapes.add(measure(stage, reconcilers, System.nanoTime() - s0));
      }
    }
    print(count, aioPushes, aioSweep, shapes);
  }

  /** Times the pushes, then rings every idle door, with these reconcilers running. */
  private static Figured measure(Stage stage, List<ServiceProcess> reconcilers, long start)
      throws Exception {
    LocalDistributed shape = stage.shape();
    int pushes = stage.pushes();
    say("distributed, " + reconcilers.size() + " reconciler(s): " + pushes + " pushes");
    List<ServiceProcess> callers = new ArrayList<>(reconcilers);
    callers.add(stage.writer());
    // One untimed push first: the check-writer logs in at its first filing, and a new replica
    // has its first run to make.
    PushTimer.run(
        stage.pushed(), shape.pds().pdsUrl(), shape.runner().did(), 1, PushTimer.Hooks.NONE);
    double[] requests = new double[2];
    Map<String, Double> before = new TreeMap<>();
    Map<String, Double> methods = new TreeMap<>();
    PushTimer.Times times =
        PushTimer.run(
            stage.pushed(),
            shape.pds().pdsUrl(),
            shape.runner().did(),
            pushes,
            new PushTimer.Hooks() {
              @Override
              public void beforePush() throws IOException {
                requests[0] = sum(callers, PDS_REQUESTS);
                before.clear();
                before.putAll(byMethod(callers));
              }

              @Override
              public void atRunning() throws IOException {
                requests[1] += sum(callers, PDS_REQUESTS) - requests[0];
                byMethod(callers)
                    .forEach(
                        (m, c) -> methods.merge(m, c - before.getOrDefault(m, 0.0), Double::sum));
              }

              @Override
              public void afterEnd() throws InterruptedException {
                // The run's end is filed; let the worker's last queue writes go by.
                Thread.sleep(1000);
              }
            });
    say(
        "distributed, "
            + reconcilers.size()
            + " reconciler(s): ringing "
            + stage.idle().size()
            + " doors");
    List<Ring> each = new ArrayList<>();
    for (int i = 0; i < stage.rings(); i++) {
      each.add(ring(stage, reconcilers));
      say("  " + Figures.seconds(each.get(i).wallNanos()));
      Thread.sleep(2000);
    }
    Map<String, Long> perPush = new TreeMap<>();
    methods.forEach((m, c) -> perPush.put(m, Math.round(c / pushes)));
    perPush.values().removeIf(c -> c == 0);
    return new Figured(
        times, requests[1] / pushes, perPush, start, new Rings(each), reconcilers.size());
  }

  /**
   * Publishes one {@code sweep} doorbell per idle repository, as the ingester's sweep does, and
   * waits until the reconcilers have ended that many more passes.
   */
  private static Ring ring(Stage stage, List<ServiceProcess> reconcilers) throws Exception {
    List<IdleRepos.Repo> idle = stage.idle();
    double passes0 = sum(reconcilers, PASSES);
    double ok0 = sum(reconcilers, PASSES_OK);
    double requests0 = sum(reconcilers, PDS_REQUESTS);
    Properties p = new Properties();
    p.put("bootstrap.servers", stage.shape().broker().bootstrapServers());
    p.putAll(stage.shape().broker().clientSettings("admin"));
    p.put("linger.ms", "5");
    String value = DoorbellMessage.encode(Doorbell.SWEEP);
    long t0 = System.nanoTime();
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (IdleRepos.Repo r : idle) {
        String key = new RepoId(stage.owner().did(), r.key()).toString();
        producer.send(new ProducerRecord<>(Topics.DOORBELLS, key, value));
      }
      producer.flush();
    }
    long deadline = t0 + MAX.toNanos();
    double passes = passes0;
    while (passes - passes0 < idle.size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only " + (passes - passes0) + " of " + idle.size() + " passes in " + MAX);
      }
      Thread.sleep(50);
      passes = sum(reconcilers, PASSES);
    }
    long wall = System.nanoTime() - t0;
    double done = passes - passes0;
    double requests = sum(reconcilers, PDS_REQUESTS) - requests0;
    int failed = (int) Math.round(done - (sum(reconcilers, PASSES_OK) - ok0));
    return new Ring(idle.size(), wall, requests / done, failed);
  }

  /**
   * Waits until every reconciler has passed something, they have {@code watched} passes between
   * them, and no pass has ended for {@link #SETTLED}: the passes of the start (every door rung as
   * partitions are assigned and again as the ingester connects) are over.
   */
  private static void settle(List<ServiceProcess> reconcilers, int watched) throws Exception {
    long deadline = System.nanoTime() + MAX.toNanos();
    double last = -1;
    long since = System.nanoTime();
    while (true) {
      double now = sum(reconcilers, PASSES);
      boolean everyOne = true;
      for (ServiceProcess r : reconcilers) {
        everyOne &= r.metric(PASSES) > 0;
      }
      if (now != last) {
        last = now;
        since = System.nanoTime();
      } else if (everyOne && now >= watched && System.nanoTime() - since > SETTLED.toNanos()) {
        say("settled after " + (long) now + " passes");
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the reconcilers did not settle in " + MAX);
      }
      Thread.sleep(500);
    }
  }

  /** The PDS requests the services have counted, by method, summed over the services. */
  private static Map<String, Double> byMethod(List<ServiceProcess> services) throws IOException {
    Map<String, Double> out = new TreeMap<>();
    for (ServiceProcess s : services) {
      for (String line : s.metrics().split("\n")) {
        int at = line.indexOf("method=\"");
        if (line.startsWith(PDS_REQUESTS + "{") && at > 0) {
          String method = line.substring(at + 8, line.indexOf('"', at + 8));
          double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
          out.merge(Figures.shortName(method), value, Double::sum);
        }
      }
    }
    return out;
  }

  private static double sum(List<ServiceProcess> services, String prefix) throws IOException {
    double sum = 0;
    for (ServiceProcess s : services) {
      sum += s.metric(prefix);
    }
    return sum;
  }

  private static void print(
      int count, TriggerBench.Pushes aioPushes, TriggerBench.Sweep aio, List<Figured> shapes) {
    List<String> head = new ArrayList<>(List.of("measure", "all-in-one"));
    for (Figured f : shapes) {
      head.add(
          "distributed, " + f.reconcilers() + " reconciler" + (f.reconcilers() > 1 ? "s" : ""));
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(head);
    rows.add(
        row(
            "ref write -> check queued, median (max)",
            times(aioPushes.times().queued()),
            shapes,
            f -> times(f.times().queued())));
    rows.add(
        row(
            "ref write -> check running, median (max)",
            times(aioPushes.times().running()),
            shapes,
            f -> times(f.times().running())));
    rows.add(
        row(
            "PDS requests per push, to running",
            String.format("%.1f", aioPushes.requests()),
            shapes,
            f -> String.format("%.1f", f.requestsPerPush())));
    rows.add(
        row(
            "every door of " + count + " rung: wall, median (max)",
            Figures.seconds(aio.wallNanos()),
            shapes,
            f ->
                Figures.seconds(Figures.middle(f.rings().walls()))
                    + " ("
                    + Figures.seconds(Figures.largest(f.rings().walls()))
                    + ")"));
    rows.add(
        row(
            "  passes per second, median (range)",
            Figures.rate(count, aio.wallNanos()),
            shapes,
            f -> rates(count, f.rings().walls())));
    rows.add(
        row(
            "  PDS requests per pass",
            String.format("%.2f", (double) aio.requests() / count),
            shapes,
            f -> String.format("%.2f", f.rings().requestsPerPass())));
    rows.add(row("  failed passes", "", shapes, f -> Integer.toString(f.rings().failed())));
    rows.add(
        row(
            "start and first passes",
            Figures.seconds(aio.start()),
            shapes,
            f -> Figures.seconds(f.startNanos())));
    for (List<String> r : rows) {
      StringBuilder line = new StringBuilder(String.format("%-42s", r.get(0)));
      for (String cell : r.subList(1, r.size())) {
        line.append(String.format(" %26s", cell));
      }
      System.out.println(line);
    }
    System.out.println("PDS requests per push to running, by method:");
    System.out.println("  all-in-one: " + aioPushes.byMethod());
    for (Figured f : shapes) {
      System.out.println("  " + head.get(2 + shapes.indexOf(f)) + ": " + f.byMethod());
    }
  }

  private static List<String> row(
      String measure,
      String allInOne,
      List<Figured> shapes,
      java.util.function.Function<Figured, String> cell) {
    List<String> r = new ArrayList<>(List.of(measure, allInOne));
    shapes.forEach(f -> r.add(cell.apply(f)));
    return r;
  }

  /** The rate at the median time, and its range over the rings. */
  private static String rates(int count, long[] walls) {
    return Figures.rate(count, Figures.middle(walls))
        + " ("
        + Figures.rate(count, Figures.largest(walls))
        + "-"
        + Figures.rate(count, Figures.smallest(walls))
        + ")";
  }

  private static String times(long[] nanos) {
    return Figures.median(nanos) + " (" + Figures.max(nanos) + ")";
  }

  private static void say(String what) {
    System.out.println("==> " + what);
  }
}
