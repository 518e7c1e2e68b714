package dev.knotless.bench;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.Topics;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.distributed.LocalDistributed;
import dev.knotless.testing.distributed.ServiceProcess;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The distributed shape with the scheduler, from a doorbell to the run's pod running: a push to the
 * reference PDS, then a doorbell published straight to the broker (no ingester, so its latency is
 * not counted), the reconciler's pass queueing the run with its order, the scheduler taking it,
 * planning it again from the PDS and making its pod, and the test kubelet starting the pod's
 * container. Each push waits until the previous run's pod is gone. Services run as processes from
 * their built jars. Run: {@code bin/bench DoorbellToPod [pushes (8)]}.
 */
public final class DoorbellToPodBench {

  private DoorbellToPodBench() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    LocalDocker.ensure();
    Path dir = Files.createTempDirectory("doorbell-to-pod-bench");
    try (KubeApiServer api = KubeApiServer.start();
        TestKubelet kubelet =
            TestKubelet.start(api, Map.of("gvisor", LocalDocker.SANDBOX_RUNTIME), 0);
        KubernetesClient client = api.client("runs", "bench");
        LocalDistributed shape =
            LocalDistributed.start(LocalDistributed.projectRoot(), dir).withScheduler()) {
      OwnerRepo owner =
          shape.ownerRepo(
              "app",
              Map.of(
                  ".knotless/workflows/ci.yml",
                  "on: {push: {refs: [main]}}\nsteps:\n  - name: hi\n    run: echo hi\n"));
      shape.startCheckWriter();
      ServiceProcess reconciler = shape.startReconciler();
      shape.startScheduler(api.url(), "bench", "runs", "gvisor", LocalDocker.BUSYBOX, Map.of());
      String key = new RepoId(owner.account.did(), owner.key()).toString();
      Properties p = new Properties();
      p.put("bootstrap.servers", shape.broker().bootstrapServers());
      p.putAll(shape.broker().clientSettings("admin"));
      try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
        ring(producer, key);
        waitFor(() -> reconciler.metric("knotless_run_passes_total") >= 1, "the baseline pass");
        long[] toPod = new long[pushes];
        long[] toRunning = new long[pushes];
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < pushes; i++) {
          owner.commit(Map.of("n.txt", i + "\n"));
          owner.push("main");
          long t0 = System.nanoTime();
          ring(producer, key);
          String pod = null;
          while (true) {
            for (Pod x : client.pods().inNamespace("runs").list().getItems()) {
              String name = x.getMetadata().getName();
              if (seen.contains(name)) {
                continue;
              }
              if (toPod[i] == 0) {
                toPod[i] = System.nanoTime() - t0;
              }
              if (x.getStatus() != null && "Running".equals(x.getStatus().getPhase())) {
                toRunning[i] = System.nanoTime() - t0;
                pod = name;
              }
            }
            if (pod != null || System.nanoTime() - t0 > 120_000_000_000L) {
              break;
            }
            Thread.sleep(10);
          }
          if (pod == null) {
            throw new IllegalStateException("push " + i + ": no pod ran within two minutes");
          }
          seen.add(pod);
          String done = pod;
          waitFor(
              () -> client.pods().inNamespace("runs").withName(done).get() == null,
              "pod " + done + " deleted");
        }
        System.out.printf(
            Locale.ROOT,
            "%-40s %9s %9s %9s%n",
            "doorbell to, ms (" + pushes + " pushes)",
            "median",
            "p90",
            "least");
        row("the run's pod made", toPod);
        row("the run's pod running", toRunning);
      }
    }
  }

  private static void ring(KafkaProducer<String, String> producer, String key) throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                Topics.DOORBELLS, key, DoorbellMessage.encode(Doorbell.frame("dev.knotless.ref"))))
        .get();
  }

  private interface Check {
    boolean done() throws Exception;
  }

  private static void waitFor(Check check, String what) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!check.done()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + ": not within two minutes");
      }
      Thread.sleep(50);
    }
  }

  private static void row(String name, long[] nanos) {
    System.out.printf(
        Locale.ROOT,
        "%-40s %9d %9d %9d%n",
        name,
        ExecutorBench.percentile(nanos, 50) / 1_000_000,
        ExecutorBench.percentile(nanos, 90) / 1_000_000,
        Figures.smallest(nanos) / 1_000_000);
  }
}
