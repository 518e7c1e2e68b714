package dev.knotless.testing.distributed;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code deploy/local-distributed.sh}: the distributed shape on this machine with a sample
 * repository. The reconciler only queues runs; the scheduler runs each as a pod on the Fabric8 mock
 * API server, and the test kubelet runs the pod as a container of whatever docker daemon answers,
 * under its gVisor runtime when it has one. It pushes one commit, prints the check as the services
 * file it and the pod that ran it, then keeps running until Ctrl-C (or stops at once with {@code
 * --exit}), ending every process it started.
 */
public final class LocalDistributedMain {
  private static final String CI =
      """
      name: ci
      on: {push: {refs: [main]}}
      steps:
        - name: build
          run: echo "building $KNOTLESS_RUN_REPO at $KNOTLESS_RUN_SHA"; sleep 1; echo built
      """;

  /** The namespace run pods go in, and the RuntimeClass others' code runs under. */
  static final String NAMESPACE = "knotless-runs";

  static final String SANDBOX_CLASS = "gvisor";

  /** Kept so the level set on it holds: the mock API server logs every request at INFO. */
  private static final java.util.logging.Logger MOCK_SERVER_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private LocalDistributedMain() {}

  public static void main(String[] args) {
    try {
      tour(args);
    } catch (Exception | Error e) {
      // Exit, so the shutdown hook ends what was started, rather than hang on their threads.
      e.printStackTrace();
      System.out.println("==> the tour failed: " + e);
      System.exit(1);
    }
  }

  private static void tour(String[] args) throws Exception {
    boolean exit = args.length > 0 && args[0].equals("--exit");
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
    // KNOTLESS_TOUR_DIR: elsewhere than the project's .work (a test's own directory, say).
    String own = System.getenv("KNOTLESS_TOUR_DIR");
    Path dir =
        own == null || own.isBlank()
            ? LocalDistributed.projectRoot().resolve(".work/local-distributed")
            : Path.of(own);
    // Each tour starts clean: the services' caches would hold a handle of the last tour's PDS,
    // which is gone (its accounts have the same handles on a new port).
    clear(dir);
    System.out.println(
        "==> starting Kafka, PostgreSQL and the reference PDS (logs in " + dir + ")");
    LocalDocker.ensureImages();
    String runtime = LocalDocker.gvisorRuntime().orElse(null);
    if (runtime == null) {
      runtime = LocalDocker.defaultRuntime();
      System.out.println(
          "==> the daemon has no runsc runtime: RuntimeClass "
              + SANDBOX_CLASS
              + " maps to its default, "
              + runtime
              + ", with no sandbox");
    } else {
      System.out.println(
          "==> RuntimeClass " + SANDBOX_CLASS + " maps to the daemon's gVisor runtime " + runtime);
    }
    KubeApiServer api = KubeApiServer.start();
    TestKubelet kubelet = TestKubelet.startOnAnyDaemon(api, Map.of(SANDBOX_CLASS, runtime), 0);
    System.out.println("==> the mock Kubernetes API server at " + api.url() + ", a test kubelet");
    LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  shape.close();
                  try {
                    kubelet.close();
                  } catch (Exception e) {
                    System.err.println("the test kubelet did not close: " + e);
                  }
                  api.close();
                  stopped.countDown();
                }));
    OwnerRepo owner =
        shape.ownerRepo("demo", Map.of(".knotless/workflows/ci.yml", CI, "README.md", "demo\n"));
    System.out.println("==> owner " + owner.account.handle() + " pushed " + owner.label());
    ServiceProcess writer = shape.startCheckWriter();
    ServiceProcess reconciler = shape.startReconciler();
    ServiceProcess scheduler =
        shape.startScheduler(
            api.url(),
            "tour-" + Long.toHexString(System.nanoTime()),
            NAMESPACE,
            SANDBOX_CLASS,
            LocalDocker.BUSYBOX,
            Map.of());
    ServiceProcess ingester = shape.startIngester();
    for (ServiceProcess s : new ServiceProcess[] {ingester, reconciler, scheduler, writer}) {
      System.out.println("==> " + s + ": " + s.url("/q/health") + "  " + s.url("/q/metrics"));
    }
    Checks.await(Duration.ofSeconds(120), "the first pass", () -> Checks.passes(reconciler) >= 1);
    owner.commit(Map.of("README.md", "demo, pushed again\n"));
    String sha = owner.push("main");
    System.out.println("==> pushed " + sha + " to main");
    XrpcClient client = XrpcClient.create(shape.pds().pdsUrl());
    String last = "";
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    CheckRecord check = null;
    while (System.nanoTime() < deadline) {
      RecordPage page =
          client.listRecords(shape.runner().did(), CheckRecord.COLLECTION, 100, null, false);
      for (Record r : page.records()) {
        CheckRecord c = CheckRecord.fromJson(r.value());
        if (c.commit().equals(sha)) {
          check = c;
          if (!c.status().wire().equals(last)) {
            last = c.status().wire();
            System.out.println("    check " + r.rkey() + ": " + last);
          }
        }
      }
      if (check != null && check.status().ended()) {
        break;
      }
      Thread.sleep(100);
    }
    if (check == null || !check.status().ended()) {
      System.out.println("==> the check did not end in two minutes; see the logs in " + dir);
      System.exit(1);
    }
    System.out.println("==> its log:");
    String log =
        new String(client.getBlob(shape.runner().did(), check.log().cid()), StandardCharsets.UTF_8);
    System.out.print(log);
    System.out.println("==> " + podOfRun(log));
    if (exit) {
      System.exit(check.status().wire().equals("success") ? 0 : 1);
    }
    System.out.println("==> running; push with git to " + owner.label() + ", Ctrl-C to stop");
    stopped.await();
  }

  /** What a pod run's log says of its pod: "ran in pod NAME, runtime class C", from its line. */
  static String podOfRun(String log) {
    return log.lines()
        .filter(l -> l.startsWith("pod "))
        .findFirst()
        .map(l -> "ran in " + l)
        .orElse("no pod line in the log: the run did not go to a pod");
  }

  private static void clear(Path dir) throws java.io.IOException {
    if (!java.nio.file.Files.exists(dir)) {
      return;
    }
    try (var paths = java.nio.file.Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(p);
      }
    }
  }
}
