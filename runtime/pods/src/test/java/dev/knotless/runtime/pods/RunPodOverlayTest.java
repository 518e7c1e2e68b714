package dev.knotless.runtime.pods;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.pod.RunPod;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's run-pod settings as the scheduler reads them at start ({@code --pod-overlay}, the
 * chart's ConfigMap) and lays them over every run pod: the pod carries them, and the runner's own
 * guarantees (sandbox, security context, no token, its container and volumes) stay as they were. A
 * patch that names one of those, or a field no pod spec has, stops the scheduler before any pod.
 */
class RunPodOverlayTest {
  @TempDir Path dir;

  private static final String FULL =
      """
      {"imagePullSecrets": ["registry-a"],
       "nodeSelector": {"knotless.dev/runs": "true"},
       "tolerations": [{"key": "runs", "operator": "Equal", "value": "only",
                        "effect": "NoSchedule"}],
       "priorityClassName": "ci-low",
       "podSpecPatch": {
         "nodeSelector": {"topology.kubernetes.io/zone": "b"},
         "terminationGracePeriodSeconds": 5,
         "dnsConfig": {"options": [{"name": "ndots", "value": "1"}]},
         "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
           "nodeSelectorTerms": [{"matchExpressions": [
             {"key": "pool", "operator": "In", "values": ["runs"]}]}]}}}}}
      """;

  private Path file(String json) throws IOException {
    Path f = dir.resolve("overlay-" + json.hashCode() + ".json");
    Files.writeString(f, json);
    return f;
  }

  private static PodKind.Settings settings(Path overlay) {
    Map<String, String> values = new HashMap<>(Map.of("runtime", "runsc", "run-as-user", "1000"));
    if (overlay != null) {
      values.put("pod-overlay", overlay.toString());
    }
    return new PodKind().settings(ExecutorConfig.of(values, Map.of()));
  }

  private static Pod pod(PodKind.Settings settings) {
    RunSpec spec =
        RunSpec.of(
            Path.of("/m"), "a".repeat(40), List.of(ExecStep.run("s", "true", Duration.ZERO)));
    return RunPods.toPod(RunPod.of(settings.pod(), spec, "did:plc:abc", "run-1"));
  }

  @Test
  void aRunPodCarriesThePullSecretsPlacementPriorityAndPatchedFields() throws IOException {
    PodSpec spec = pod(settings(file(FULL))).getSpec();
    assertEquals(List.of(new LocalObjectReference("registry-a")), spec.getImagePullSecrets());
    assertEquals(
        Map.of("knotless.dev/runs", "true", "topology.kubernetes.io/zone", "b"),
        spec.getNodeSelector(),
        "the patch's selector merges into the value's");
    assertEquals(1, spec.getTolerations().size());
    var t = spec.getTolerations().get(0);
    assertEquals(
        List.of("runs", "Equal", "only", "NoSchedule"),
        List.of(t.getKey(), t.getOperator(), t.getValue(), t.getEffect()));
    assertNull(t.getTolerationSeconds());
    assertEquals("ci-low", spec.getPriorityClassName());
    assertEquals(5L, spec.getTerminationGracePeriodSeconds());
    assertEquals("ndots", spec.getDnsConfig().getOptions().get(0).getName());
    assertEquals(
        List.of("runs"),
        spec.getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms()
            .get(0)
            .getMatchExpressions()
            .get(0)
            .getValues());
    assertTheRunnersGuaranteesHold(spec);
  }

  @Test
  void withoutAnOverlayARunPodHasNoneOfIt() {
    PodSpec spec = pod(settings(null)).getSpec();
    assertEquals(List.of(), spec.getImagePullSecrets());
    assertTrue(spec.getNodeSelector() == null || spec.getNodeSelector().isEmpty());
    assertEquals(List.of(), spec.getTolerations());
    assertNull(spec.getPriorityClassName());
    assertEquals(0L, spec.getTerminationGracePeriodSeconds());
    assertTheRunnersGuaranteesHold(spec);
  }

  @Test
  void aPatchThatTouchesTheSandboxSecurityContextOrTokenIsRefusedAtStartByName()
      throws IOException {
    for (String patch :
        List.of(
            "\"runtimeClassName\": \"runc\"",
            "\"securityContext\": {\"runAsUser\": 0}",
            "\"automountServiceAccountToken\": true",
            "\"containers\": []",
            "\"volumes\": [{\"name\": \"sock\", \"hostPath\": {\"path\": \"/run\"}}]")) {
      String field = patch.substring(1, patch.indexOf('"', 1));
      Path f = file("{\"podSpecPatch\": {\"dnsPolicy\": \"Default\", " + patch + "}}");
      var e = assertThrows(IllegalArgumentException.class, () -> settings(f), field);
      assertTrue(
          e.getMessage().startsWith("--pod-overlay " + f + ": podSpecPatch." + field + ": "),
          e.getMessage());
      assertFalse(e.getMessage().contains("dnsPolicy"), "an allowed field is not named");
    }
  }

  @Test
  void aPatchFieldNoPodSpecHasOrAValueOfTheWrongTypeIsRefusedAtStart() throws IOException {
    Path misspelt =
        file("{\"podSpecPatch\": {\"tolerationz\": [], \"affinity\": {\"nodeAfinity\": {}}}}");
    var e = assertThrows(IllegalArgumentException.class, () -> settings(misspelt));
    assertTrue(e.getMessage().contains("podSpecPatch.affinity.nodeAfinity"), e.getMessage());
    assertTrue(e.getMessage().contains("podSpecPatch.tolerationz"), e.getMessage());
    assertTrue(e.getMessage().endsWith("not a field of a pod's spec"), e.getMessage());
    Path wrongType = file("{\"podSpecPatch\": {\"terminationGracePeriodSeconds\": \"soon\"}}");
    e = assertThrows(IllegalArgumentException.class, () -> settings(wrongType));
    assertTrue(e.getMessage().contains("podSpecPatch: not a pod spec"), e.getMessage());
    Path missing = dir.resolve("absent.json");
    e = assertThrows(IllegalArgumentException.class, () -> settings(missing));
    assertTrue(e.getMessage().startsWith("--pod-overlay " + missing + ": cannot read"));
  }

  /** What RunPod fixes for every pod, whatever the operator laid over it. */
  private static void assertTheRunnersGuaranteesHold(PodSpec spec) {
    assertEquals("runsc", spec.getRuntimeClassName());
    assertEquals(Boolean.FALSE, spec.getAutomountServiceAccountToken());
    assertNull(spec.getServiceAccountName());
    assertEquals("RuntimeDefault", spec.getSecurityContext().getSeccompProfile().getType());
    assertEquals(1000L, spec.getSecurityContext().getRunAsUser());
    assertEquals(Boolean.TRUE, spec.getSecurityContext().getRunAsNonRoot());
    assertEquals("Never", spec.getRestartPolicy());
    assertEquals(Boolean.FALSE, spec.getEnableServiceLinks());
    assertEquals(Boolean.FALSE, spec.getHostNetwork());
    assertEquals(Boolean.FALSE, spec.getHostPID());
    assertEquals(Boolean.FALSE, spec.getHostIPC());
    assertEquals(1, spec.getContainers().size());
    var c = spec.getContainers().get(0);
    assertEquals(RunPod.CONTAINER, c.getName());
    assertEquals(List.of("sh", "-c"), c.getCommand().subList(0, 2));
    assertEquals(List.of(), c.getEnv(), "nothing of the run's reaches the pod spec");
    assertEquals(Boolean.FALSE, c.getSecurityContext().getAllowPrivilegeEscalation());
    assertEquals(List.of(), spec.getInitContainers());
    assertEquals(
        List.of("work", "knotless"), spec.getVolumes().stream().map(Volume::getName).toList());
    assertTrue(spec.getVolumes().stream().allMatch(v -> v.getEmptyDir() != null));
  }
}
