package dev.knotless.runtime.pods;

import dev.knotless.runner.exec.pod.Launcher;
import dev.knotless.runner.exec.pod.RunPod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link RunPod} as a Fabric8 Pod, field for field: every choice is RunPod's, and the fixed ones it
 * documents (no token, no service links, no host namespaces, no privilege escalation) are set here
 * exactly as it lists them. Stateless.
 */
final class RunPods {

  private RunPods() {}

  static Pod toPod(RunPod pod) {
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
