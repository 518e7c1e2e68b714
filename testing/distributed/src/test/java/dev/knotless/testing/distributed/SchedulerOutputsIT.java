package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run's outputs in the distributed shape: the scheduler runs a push's workflow as a pod the test
 * kubelet runs as a real container, copies the images its step left out of the pod, keeps them by
 * the rules every executor keeps, uploads them as the runner, and the check-writer files them with
 * the check. What the check names is downloaded from the PDS and compared byte for byte.
 */
class SchedulerOutputsIT {
  static final String NAMESPACE = "runs";
  static final String SANDBOX = "gvisor";
  static final String SECRET = "outputs-secret-" + Long.toHexString(System.nanoTime());
  static final String CI =
      """
      on: {push: {refs: [main]}}
      secrets: [DEPLOY_TOKEN]
      steps:
        - name: shoot
          run: |
            cd "$KNOTLESS_RUN_OUTPUTS"
            i=0; while [ $i -lt 256 ]; do printf "\\\\$(printf %o $i)"; i=$((i+1)); done > bytes.png
            printf '<svg>a note</svg>\\n' > note.svg
            printf 'token=%s' "$DEPLOY_TOKEN" > leak.png
            printf 'odd' > "$(printf 'bad\\nname.png')"
            mkdir sub; printf 'deep' > sub/deep.png
            printf 'not an image' > notes.txt
      """;

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static KubeApiServer api;
  private static TestKubelet kubelet;
  private static KubernetesClient client;
  private static ServiceProcess reconciler;
  private static final String TOKEN = "scheduler-token-" + Long.toHexString(System.nanoTime());

  @BeforeAll
  static void start() throws Exception {
    LocalDocker.ensure();
    api = KubeApiServer.start();
    kubelet = TestKubelet.start(api, Map.of(SANDBOX, LocalDocker.SANDBOX_RUNTIME), 0);
    client = api.client(NAMESPACE, "test-" + TOKEN);
    Path dir = Files.createTempDirectory("scheduler-outputs-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    Path secrets = dir.resolve("secrets.json");
    Files.writeString(
        secrets, "{\"" + owner.account.did() + "/app\": {\"DEPLOY_TOKEN\": \"" + SECRET + "\"}}");
    shape.startCheckWriter();
    reconciler = shape.startReconciler();
    shape.startScheduler(
        api.url(),
        TOKEN,
        NAMESPACE,
        SANDBOX,
        LocalDocker.BUSYBOX,
        Map.of("knotless.scheduler.secrets-file", secrets.toString()));
    shape.startIngester();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (shape != null) {
        shape.close();
      }
    } finally {
      if (kubelet != null) {
        kubelet.close();
      }
      if (client != null) {
        client.close();
      }
      if (api != null) {
        api.close();
      }
    }
  }

  @Test
  void aPodRunsImagesAreFiledWithItsCheckByteForByteButNeitherASecretNorABadName()
      throws Exception {
    Checks.await(Duration.ofSeconds(90), "the baseline pass", () -> Checks.passes(reconciler) >= 1);
    owner.commit(Map.of("README.md", "hello again\n"));
    long t0 = System.nanoTime();
    String sha = owner.push("main");

    CheckRecord check =
        CheckRecord.fromJson(
            Checks.awaitOne(
                    shape,
                    Duration.ofSeconds(180),
                    c -> c.status().ended() && c.commit().equals(sha))
                .value());
    System.out.printf(
        "[SchedulerOutputsIT] push to a check with its outputs: %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    String log = Checks.log(shape, check);
    assertEquals(CheckStatus.SUCCESS, check.status(), log);
    assertTrue(log.contains("pod knotless-"), "the run had a pod: " + log);

    // Filed as the all-in-one files them: images only, in name order, each its own blob.
    List<String> names = check.outputs().stream().map(o -> o.path("name").asText()).toList();
    assertEquals(List.of("bytes.png", "note.svg"), names, log);
    for (JsonNode o : check.outputs()) {
      assertEquals("dev.knotless.check#imageOutput", o.path("$type").asText(), o.toString());
    }
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    assertArrayEquals(all, blob(check.outputs().get(0)));
    assertEquals(
        "<svg>a note</svg>\n", new String(blob(check.outputs().get(1)), StandardCharsets.UTF_8));
    assertEquals("image/png", image(check.outputs().get(0)).mimeType());
    assertEquals("image/svg+xml", image(check.outputs().get(1)).mimeType());

    // Held back and refused with the all-in-one's own lines, and never filed.
    assertTrue(log.contains("output \"leak.png\" held back: it holds a secret\n"), log);
    assertTrue(log.contains("output \"bad\\nname.png\" refused: not a plain file name\n"), log);
    assertTrue(log.contains("output \"sub/deep.png\" refused: not a plain file name\n"), log);
    assertFalse(log.contains(SECRET), log);
    assertFalse(log.contains("notes.txt"), log);
    Checks.await(
        Duration.ofSeconds(30),
        "the run's pod deleted",
        () -> client.pods().inNamespace(NAMESPACE).list().getItems().isEmpty());
  }

  private static BlobRef image(JsonNode output) {
    return BlobRef.fromJson(output.path("image"));
  }

  /** The blob an output names, as anyone reads it from the runner's PDS. */
  private static byte[] blob(JsonNode output) throws Exception {
    return XrpcClient.create(shape.pds().pdsUrl())
        .getBlob(shape.runner().did(), image(output).cid());
  }
}
