package dev.knotless.runtime.pods;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.exec.pod.Launcher;
import dev.knotless.runner.exec.pod.PodOverlay;
import dev.knotless.runner.exec.pod.RunPod;
import dev.knotless.runner.exec.pod.SpecPatch;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link RunPod} as a Fabric8 Pod, field for field: every choice is RunPod's, and the fixed ones it
 * documents (no token, no service links, no host namespaces, no privilege escalation) are set here
 * exactly as it lists them. The operator's {@link PodOverlay} goes on last: its named settings,
 * then its spec patch, which cannot name a fixed field ({@link SpecPatch#PROTECTED}). Stateless.
 */
final class RunPods {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RunPods() {}

  static Pod toPod(RunPod pod) {
    Pod built = ownFields(pod);
    withCaches(built.getSpec(), pod);
    built.setSpec(overlaid(built.getSpec(), pod.overlay()));
    return built;
  }

  /**
   * Checks that {@code overlay} makes a pod the API server would take as written: its patch may
   * only name pod spec fields that exist, with values of their types. Called when the settings are
   * read, so a runner with a misspelt patch stops at start instead of every run pod losing a field.
   *
   * @throws IllegalArgumentException naming the field, such as {@code podSpecPatch.affinty}
   */
  static void check(PodOverlay overlay) {
    RunPod sample =
        new RunPod(
            "knotless-check",
            Map.of(),
            Map.of(),
            "image",
            null,
            Map.of(),
            Map.of(),
            0,
            null,
            overlay,
            List.of(),
            null);
    PodSpec spec = toPod(sample).getSpec();
    List<String> unknown = UnknownFields.in(spec);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          unknown.stream()
                  .map(f -> "podSpecPatch." + f)
                  .collect(java.util.stream.Collectors.joining(", "))
              + ": not a field of a pod's spec");
    }
  }

  /**
   * Mounts the run's cache overlays made on the node as hostPath volumes (a directory that must
   * exist: the overlay's merged view), and holds the pod to that node by a required node affinity
   * on its name, as a DaemonSet's pods are held, so the cluster's scheduler still checks the node
   * has room.
   */
  private static void withCaches(PodSpec spec, RunPod pod) {
    for (int i = 0; i < pod.caches().size(); i++) {
      RunPod.HostMount m = pod.caches().get(i);
      String name = "cache-" + i;
      spec.getVolumes()
          .add(
              new io.fabric8.kubernetes.api.model.VolumeBuilder()
                  .withName(name)
                  .withNewHostPath()
                  .withPath(m.host())
                  .withType("Directory")
                  .endHostPath()
                  .build());
      spec.getContainers()
          .get(0)
          .getVolumeMounts()
          .add(
              new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                  .withName(name)
                  .withMountPath(m.containerPath())
                  .build());
    }
    if (pod.nodeName() != null) {
      spec.setAffinity(
          new io.fabric8.kubernetes.api.model.AffinityBuilder()
              .withNewNodeAffinity()
              .withNewRequiredDuringSchedulingIgnoredDuringExecution()
              .addNewNodeSelectorTerm()
              .addNewMatchField()
              .withKey("metadata.name")
              .withOperator("In")
              .withValues(pod.nodeName())
              .endMatchField()
              .endNodeSelectorTerm()
              .endRequiredDuringSchedulingIgnoredDuringExecution()
              .endNodeAffinity()
              .build());
    }
  }

  /** {@code spec} with the overlay's settings, then its patch, laid over it. */
  static PodSpec overlaid(PodSpec spec, PodOverlay overlay) {
    if (!overlay.imagePullSecrets().isEmpty()) {
      spec.setImagePullSecrets(
          overlay.imagePullSecrets().stream().map(LocalObjectReference::new).toList());
    }
    if (!overlay.nodeSelector().isEmpty()) {
      spec.setNodeSelector(new LinkedHashMap<>(overlay.nodeSelector()));
    }
    if (!overlay.tolerations().isEmpty()) {
      spec.setTolerations(
          overlay.tolerations().stream()
              .map(
                  t ->
                      new Toleration(
                          t.effect(), t.key(), t.operator(), t.tolerationSeconds(), t.value()))
              .toList());
    }
    if (overlay.priorityClassName() != null) {
      spec.setPriorityClassName(overlay.priorityClassName());
    }
    if (overlay.specPatch().isEmpty()) {
      return spec;
    }
    ObjectNode patched = overlay.specPatch().applyTo(JSON.valueToTree(spec));
    try {
      return JSON.treeToValue(patched, PodSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "podSpecPatch: not a pod spec: " + e.getOriginalMessage(), e);
    }
  }

  private static Pod ownFields(RunPod pod) {
    PodSecurityContextBuilder podSecurity =
        new PodSecurityContextBuilder()
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile();
    if (pod.runAsUser() > 0) {
      podSecurity
          .withRunAsNonRoot(true)
          .withRunAsUser(pod.runAsUser())
          .withRunAsGroup(pod.runAsUser())
          .withFsGroup(pod.runAsUser());
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(pod.name())
        .withLabels(pod.labels())
        .withAnnotations(pod.annotations())
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withShareProcessNamespace(true)
        .withHostNetwork(false)
        .withHostPID(false)
        .withHostIPC(false)
        .withTerminationGracePeriodSeconds(0L)
        .withRuntimeClassName(pod.runtimeClassName())
        .withSecurityContext(podSecurity.build())
        .addNewContainer()
        .withName(RunPod.CONTAINER)
        .withImage(pod.image())
        .withImagePullPolicy("IfNotPresent")
        .withCommand(pod.command())
        .withWorkingDir(Launcher.WORK)
        .withNewResources()
        .withLimits(quantities(pod.limits()))
        .withRequests(quantities(pod.requests()))
        .endResources()
        .withNewSecurityContext()
        .withAllowPrivilegeEscalation(false)
        .withPrivileged(false)
        .withNewCapabilities()
        .endCapabilities()
        .endSecurityContext()
        .addNewVolumeMount()
        .withName("work")
        .withMountPath(Launcher.WORK)
        .endVolumeMount()
        .addNewVolumeMount()
        .withName("knotless")
        .withMountPath(Launcher.ROOT)
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName("work")
        .withNewEmptyDir()
        .withSizeLimit(pod.workSizeLimit() == null ? null : new Quantity(pod.workSizeLimit()))
        .endEmptyDir()
        .endVolume()
        .addNewVolume()
        .withName("knotless")
        .withNewEmptyDir()
        .withSizeLimit(pod.workSizeLimit() == null ? null : new Quantity(pod.workSizeLimit()))
        .endEmptyDir()
        .endVolume()
        .endSpec()
        .build();
  }

  private static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    values.forEach((k, v) -> q.put(k, new Quantity(v)));
    return q;
  }
}
