package dev.knotless.runner.exec.pod;

import dev.knotless.runtime.pods.Fabric8PodApi;
import dev.knotless.runtime.pods.PodCluster;
import dev.knotless.testing.LocalDocker;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/** Pods a test makes and deletes itself, as another runner or an earlier process would. */
final class Fabric8Support {

  private Fabric8Support() {}

  /** Makes an idle run pod named {@code name} carrying runner {@code did}'s labels. */
  static void createPod(PodCluster cluster, String name, String did) throws IOException {
    createPod(cluster, name, did, did);
  }

  /** As above, its label made from {@code labelDid} and its annotation holding {@code did}. */
  static void createPod(PodCluster cluster, String name, String labelDid, String did)
      throws IOException {
    RunPod pod =
        new RunPod(
            name,
            Map.of(RunPod.RUNNER_LABEL, RunPod.labelValue(labelDid), RunPod.RUN_LABEL, name),
            Map.of(RunPod.RUNNER_ANNOTATION, did),
            LocalDocker.BUSYBOX,
            null,
            Map.of(),
            Map.of(),
            0,
            null,
            PodOverlay.NONE,
            java.util.List.of(),
            null);
    api(cluster).create(pod);
  }

  static void deletePod(PodCluster cluster, String name) throws IOException {
    api(cluster).delete(name);
  }

  private static Fabric8PodApi api(PodCluster cluster) {
    return new Fabric8PodApi(cluster.client, PodCluster.NAMESPACE, Duration.ZERO);
  }
}
