package dev.knotless.testing.distributed;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code deploy/local-distributed.sh}: the distributed shape on this machine with a sample
 * repository. It pushes one commit, prints the check as the services file it, then keeps running
 * until Ctrl-C (or stops at once with {@code --exit}), ending every process it started.
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

  private LocalDistributedMain() {}

  public static void main(String[] args) throws Exception {
    boolean exit = args.length > 0 && args[0].equals("--exit");
    Path dir = LocalDistributed.projectRoot().resolve(".work/local-distributed");
    System.out.println(
        "==> starting Kafka, PostgreSQL and the reference PDS (logs in " + dir + ")");
    LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  shape.close();
                  stopped.countDown();
                }));
    OwnerRepo owner =
        shape.ownerRepo("demo", Map.of(".knotless/workflows/ci.yml", CI, "README.md", "demo\n"));
    System.out.println("==> owner " + owner.account.handle() + " pushed " + owner.label());
    ServiceProcess writer = shape.startCheckWriter();
    System.out.println(
        LocalDocker.gvisorRuntime()
            .map(r -> "==> the daemon has gVisor: runs go to runtime " + r)
            .orElse(
                "==> the daemon has no runsc runtime: runs go to its default, with no sandbox"));
    ServiceProcess reconciler = shape.startReconciler();
    ServiceProcess ingester = shape.startIngester();
    for (ServiceProcess s : new ServiceProcess[] {ingester, reconciler, writer}) {
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
    System.out.println("==> the run's container got " + LocalDocker.runtimeOfRun(log));
    if (exit) {
      System.exit(0);
    }
    System.out.println("==> running; push with git to " + owner.label() + ", Ctrl-C to stop");
    stopped.await();
  }
}
