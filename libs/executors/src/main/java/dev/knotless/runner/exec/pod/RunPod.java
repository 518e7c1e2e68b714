package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.RunSpec;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One run's pod, decided here as plain data: the Kubernetes side ({@code runtime/pods}) turns it
 * into a Pod object field for field and decides nothing. It holds no variable of the run's, no
 * secret and no script: those reach the pod only through exec stdin ({@link Launcher}).
 *
 * <p>Every run pod has one container, {@link #CONTAINER}, running {@link Launcher#IDLE} under
 * {@code sh -c}, with two emptyDir volumes ({@code /work} and {@code /knotless}) and nothing else
 * mounted (but a run's cache overlays, as hostPath volumes, when the caches are kept on the node):
 * no service-account token, no ConfigMap or Secret. Fixed for every pod, and so not fields: restart
 * policy Never, {@code automountServiceAccountToken: false}, {@code enableServiceLinks: false} (no
 * other service's address in the environment), {@code shareProcessNamespace: true} (the pause
 * process is pid 1 and reaps what steps orphan), no host network, PID or IPC namespace, {@code
 * allowPrivilegeEscalation: false}, not privileged, no added capabilities, seccomp RuntimeDefault.
 * The operator's {@link PodOverlay} is carried as it is (pull Secrets, node selector, tolerations,
 * priority class, a spec patch), to be laid over the pod after all of the above; its patch cannot
 * name any of the fixed fields. Immutable.
 *
 * @param name the pod's name: {@code knotless-<run name>}, unique among the runner's runs
 * @param labels the runner's labels: {@link #RUNNER_LABEL} (its DID, as a label value) and {@link
 *     #RUN_LABEL}, so a sweep finds exactly its own pods
 * @param annotations the runner's DID as it is, since a label value cannot hold a colon, and the
 *     run's key when it has one
 * @param image the run's image
 * @param runtimeClassName the RuntimeClass, or null for the cluster's default
 * @param limits the container's limits as Kubernetes quantities ({@code cpu}, {@code memory},
 *     {@code ephemeral-storage}), only those set
 * @param requests the container's requests: a run other than main's asks for a quarter of the CPU a
 *     main run does, which is its CPU weight on a busy node
 * @param runAsUser the user steps run as with {@code runAsNonRoot}, or 0 for the image's user
 * @param workSizeLimit the emptyDir size limit of {@code /work} and of {@code /knotless} as a
 *     quantity, or null
 * @param overlay what the operator lays over every run pod; null is {@link PodOverlay#NONE}
 * @param caches directories of the node mounted into the container as hostPath volumes: a run's
 *     cache overlays when the caches are kept on the node ({@link HostMount}); empty otherwise
 * @param nodeName the node the pod must run on (the one holding those directories), or null for
 *     wherever the cluster places it
 */
public record RunPod(
    String name,
    Map<String, String> labels,
    Map<String, String> annotations,
    String image,
    String runtimeClassName,
    Map<String, String> limits,
    Map<String, String> requests,
    long runAsUser,
    String workSizeLimit,
    PodOverlay overlay,
    List<HostMount> caches,
    String nodeName) {

  /**
   * A directory of the node, {@code host}, mounted read-write at {@code containerPath}: one cache
   * path's overlay, made on the node by the runner before the pod.
   */
  public record HostMount(String host, String containerPath) {}

  /** The one container's name. */
  public static final String CONTAINER = "run";

  /** The label carrying the runner's DID, made a label value ({@link #labelValue}). */
  public static final String RUNNER_LABEL = "run.knotless.dev/runner";

  /** The label carrying the run's name. */
  public static final String RUN_LABEL = "run.knotless.dev/run";

  /** The annotation carrying the runner's DID exactly. */
  public static final String RUNNER_ANNOTATION = "run.knotless.dev/runner-did";

  /** The annotation carrying the run's key (the {@link RunKey} option), when it has one. */
  public static final String RUN_KEY_ANNOTATION = "run.knotless.dev/run-key";

  /** The CPU request of a run other than main's, in millicores, when its limit is unset. */
  static final int BACKGROUND_MILLICPU = 250;

  /** Copies the maps. */
  public RunPod {
    Objects.requireNonNull(name, "pod name");
    Objects.requireNonNull(image, "image");
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    limits = Map.copyOf(limits);
    requests = Map.copyOf(requests);
    overlay = overlay == null ? PodOverlay.NONE : overlay;
    caches = caches == null ? List.of() : List.copyOf(caches);
  }

  /** The command of the pod's one container. */
  public List<String> command() {
    return List.of("sh", "-c", Launcher.IDLE);
  }

  /**
   * The pod of run {@code runName} of {@code spec}, for the runner {@code runnerDid}, with what
   * {@code settings} allow.
   */
  public static RunPod of(PodSettings settings, RunSpec spec, String runnerDid, String runName) {
    Map<String, String> limits = new LinkedHashMap<>();
    Map<String, String> requests = new LinkedHashMap<>();
    if (settings.cpus() > 0) {
      limits.put("cpu", millis(settings.cpus()));
    }
    if (settings.memoryGiB() > 0) {
      limits.put("memory", settings.memoryGiB() + "Gi");
      // Requested in full, so the scheduler never places a run where it cannot have it.
      requests.put("memory", settings.memoryGiB() + "Gi");
    }
    String sizeLimit = null;
    if (settings.ephemeralGiB() > 0) {
      limits.put("ephemeral-storage", settings.ephemeralGiB() + "Gi");
      sizeLimit = settings.ephemeralGiB() + "Gi";
    }
    if (spec.niceness() > 0) {
      int main = settings.cpus() > 0 ? (int) Math.round(settings.cpus() * 1000) : 1000;
      requests.put("cpu", Math.max(1, main / 4) + "m");
    } else if (settings.cpus() > 0) {
      requests.put("cpu", millis(settings.cpus()));
    }
    String image = dev.knotless.runner.exec.ContainerImage.of(spec, settings.image());
    String runKey = RunKey.of(spec);
    return new RunPod(
        podName(runName),
        Map.of(RUNNER_LABEL, labelValue(runnerDid), RUN_LABEL, labelValue(runName)),
        runKey.isEmpty()
            ? Map.of(RUNNER_ANNOTATION, runnerDid)
            : Map.of(RUNNER_ANNOTATION, runnerDid, RUN_KEY_ANNOTATION, runKey),
        image,
        settings.runtimeFor(spec.trustedCode()),
        limits,
        requests,
        settings.runAsUser(),
        sizeLimit,
        settings.overlay(),
        List.of(),
        null);
  }

  /** This pod named {@code name}: the pod of a run adopted from a runner that stopped. */
  public RunPod named(String name) {
    return new RunPod(
        name,
        labels,
        annotations,
        image,
        runtimeClassName,
        limits,
        requests,
        runAsUser,
        workSizeLimit,
        overlay,
        caches,
        nodeName);
  }

  /** This pod with {@code mounts} from node {@code node} (null: any node): caches on the node. */
  public RunPod withCaches(List<HostMount> mounts, String node) {
    return new RunPod(
        name,
        labels,
        annotations,
        image,
        runtimeClassName,
        limits,
        requests,
        runAsUser,
        workSizeLimit,
        overlay,
        mounts,
        node);
  }

  /** The pod name of run {@code runName}: lowercase letters, digits and dashes, at most 63. */
  static String podName(String runName) {
    String n = "knotless-" + runName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    n = n.length() > 63 ? n.substring(0, 63) : n;
    return n.replaceAll("-+$", "");
  }

  /**
   * {@code value} as a label value (at most 63 of letters, digits, {@code -_.}, starting and ending
   * with a letter or digit): a DID's colons become dots, so {@code did:plc:abc} is {@code
   * did.plc.abc}. Distinct DIDs of one method stay distinct, as their ids hold no colon.
   */
  public static String labelValue(String value) {
    String v = value.replaceAll("[^A-Za-z0-9_.-]", ".");
    v = v.length() > 63 ? v.substring(v.length() - 63) : v;
    return v.replaceAll("^[^A-Za-z0-9]+", "").replaceAll("[^A-Za-z0-9]+$", "");
  }

  private static String millis(double cpus) {
    return BigDecimal.valueOf(Math.round(cpus * 1000)).toPlainString() + "m";
  }
}
