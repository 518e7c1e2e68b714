package dev.knotless.testing.kubelet;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod's one container made as a docker container, as the test kubelet does it, once its image is
 * on the node ({@link ImagePuller}). Stateless.
 */
final class PodContainers {

  /** A container made, or the reason a real kubelet would leave the pod waiting. */
  record Made(String containerId, String waitingReason, String message) {}

  private PodContainers() {}

  static Made create(
      DockerClient docker, Pod pod, Map<String, String> runtimes, long pidsLimit, String kubelet) {
    PodSpec spec = pod.getSpec();
    if (spec.getContainers().size() != 1) {
      return new Made(null, "CreateContainerConfigError", "the test kubelet runs one container");
    }
    Container c = spec.getContainers().get(0);
    HostConfig host = HostConfig.newHostConfig();
    String runtimeClass = spec.getRuntimeClassName();
    if (runtimeClass != null) {
      String runtime = runtimes.get(runtimeClass);
      if (runtime == null) {
        return new Made(
            null, "CreateContainerConfigError", "RuntimeClass \"" + runtimeClass + "\" not found");
      }
      host.withRuntime(runtime);
    }
    List<Volume> volumes = new ArrayList<>();
    List<Bind> binds = new ArrayList<>();
    Map<String, io.fabric8.kubernetes.api.model.HostPathVolumeSource> hostPaths = new HashMap<>();
    for (io.fabric8.kubernetes.api.model.Volume v : spec.getVolumes()) {
      if (v.getHostPath() != null) {
        String why = HostPaths.refused(v.getHostPath());
        if (why != null) {
          // A kubelet leaves such a pod ContainerCreating, with an event; here it says why at once.
          return new Made(null, "CreateContainerConfigError", "volume " + v.getName() + ": " + why);
        }
        hostPaths.put(v.getName(), v.getHostPath());
      } else if (v.getEmptyDir() == null) {
        return new Made(
            null,
            "CreateContainerConfigError",
            "volume " + v.getName() + " is neither an emptyDir nor a hostPath");
      }
    }
    for (VolumeMount m : c.getVolumeMounts()) {
      var hostPath = hostPaths.get(m.getName());
      if (hostPath == null) {
        volumes.add(new Volume(m.getMountPath()));
      } else {
        // The node's directory bind-mounted, as a kubelet's runtime does; under runsc its gofer
        // serves it to the sandbox.
        binds.add(
            new Bind(
                hostPath.getPath(),
                new Volume(m.getMountPath()),
                Boolean.TRUE.equals(m.getReadOnly()) ? AccessMode.ro : AccessMode.rw));
      }
    }
    host.withBinds(binds);
    Map<String, Quantity> limits =
        c.getResources() == null || c.getResources().getLimits() == null
            ? Map.of()
            : c.getResources().getLimits();
    if (limits.containsKey("cpu")) {
      host.withNanoCPUs(
          Quantity.getAmountInBytes(limits.get("cpu"))
              .multiply(java.math.BigDecimal.valueOf(1e9))
              .longValue());
    }
    if (limits.containsKey("memory")) {
      long bytes = Quantity.getAmountInBytes(limits.get("memory")).longValue();
      host.withMemory(bytes).withMemorySwap(bytes);
    }
    if (pidsLimit > 0) {
      host.withPidsLimit(pidsLimit);
    }
    // The pause process reaps orphans as pid 1 when the namespace is shared; docker's init here.
    host.withInit(Boolean.TRUE.equals(spec.getShareProcessNamespace()));
    SecurityContext sc = c.getSecurityContext();
    String user = null;
    if (sc != null) {
      if (Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
        host.withSecurityOpts(List.of("no-new-privileges"));
      }
      if (Boolean.TRUE.equals(sc.getPrivileged())) {
        return new Made(
            null, "CreateContainerConfigError", "the test kubelet runs nothing privileged");
      }
      if (sc.getCapabilities() != null) {
        if (sc.getCapabilities().getAdd() != null && !sc.getCapabilities().getAdd().isEmpty()) {
          host.withCapAdd(
              sc.getCapabilities().getAdd().stream()
                  .map(Capability::valueOf)
                  .toArray(Capability[]::new));
        }
        if (sc.getCapabilities().getDrop() != null) {
          List<String> drop = sc.getCapabilities().getDrop();
          host.withCapDrop(
              drop.contains("ALL")
                  ? Capability.values()
                  : drop.stream().map(Capability::valueOf).toArray(Capability[]::new));
        }
      }
      if (sc.getRunAsUser() != null) {
        user = sc.getRunAsUser().toString();
      }
    }
    if (user == null
        && spec.getSecurityContext() != null
        && spec.getSecurityContext().getRunAsUser() != null) {
      user = spec.getSecurityContext().getRunAsUser().toString();
    }
    List<String> env = new ArrayList<>();
    for (EnvVar e : c.getEnv()) {
      env.add(e.getName() + "=" + (e.getValue() == null ? "" : e.getValue()));
    }
    var create =
        docker
            .createContainerCmd(c.getImage())
            .withName("k8s-" + pod.getMetadata().getNamespace() + "-" + pod.getMetadata().getName())
            .withLabels(
                Map.of(
                    TestKubelet.LABEL,
                    kubelet,
                    "io.kubernetes.pod.name",
                    pod.getMetadata().getName(),
                    "io.kubernetes.pod.namespace",
                    pod.getMetadata().getNamespace()))
            .withHostName(pod.getMetadata().getName())
            .withEnv(env)
            .withVolumes(volumes)
            .withHostConfig(host);
    if (c.getCommand() != null && !c.getCommand().isEmpty()) {
      create.withEntrypoint(c.getCommand());
    }
    create.withCmd(c.getArgs() == null ? List.of() : c.getArgs());
    if (c.getWorkingDir() != null) {
      create.withWorkingDir(c.getWorkingDir());
    }
    if (user != null) {
      create.withUser(user);
    }
    return new Made(create.exec().getId(), null, null);
  }
}
