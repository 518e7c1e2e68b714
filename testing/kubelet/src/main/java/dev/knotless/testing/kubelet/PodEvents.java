package dev.knotless.testing.kubelet;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The v1 events the test kubelet records on a pod, shaped as a kubelet's: involved object the pod
 * and its container's field path, source {@code kubelet} on its node, times to the second as the
 * API server keeps them. Each is written at once (a real kubelet sends them on its own time, so one
 * may reach the API server after the pod runs). A write that fails is logged and forgotten, as a
 * kubelet's is.
 */
final class PodEvents {

  /** The node the test kubelet says it is. */
  static final String NODE = "test-kubelet";

  private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);

  private final KubernetesClient client;

  PodEvents(KubernetesClient client) {
    this.client = client;
  }

  void normal(Pod pod, String reason, String message) {
    record(pod, "Normal", reason, message);
  }

  void warning(Pod pod, String reason, String message) {
    record(pod, "Warning", reason, message);
  }

  private void record(Pod pod, String type, String reason, String message) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    Event e =
        new EventBuilder()
            .withNewMetadata()
            .withName(pod.getMetadata().getName() + "." + Long.toHexString(System.nanoTime()))
            .withNamespace(pod.getMetadata().getNamespace())
            .endMetadata()
            .withNewInvolvedObject()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .withUid(pod.getMetadata().getUid())
            .withFieldPath(
                "spec.containers{" + pod.getSpec().getContainers().get(0).getName() + "}")
            .endInvolvedObject()
            .withType(type)
            .withReason(reason)
            .withMessage(message)
            .withNewSource()
            .withComponent("kubelet")
            .withHost(NODE)
            .endSource()
            .withReportingComponent("kubelet")
            .withReportingInstance(NODE)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .build();
    try {
      client.v1().events().inNamespace(pod.getMetadata().getNamespace()).resource(e).create();
    } catch (RuntimeException failed) {
      LOG.debug("event {} on pod {} not recorded: {}", reason, pod.getMetadata().getName(), failed);
    }
  }
}
