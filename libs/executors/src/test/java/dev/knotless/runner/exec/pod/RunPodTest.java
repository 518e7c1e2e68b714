package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.RunSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunPodTest {

  private static final String DID = "did:plc:abc123";

  private static RunSpec spec() {
    return RunSpec.of(
        Path.of("/m"), "a".repeat(40), List.of(ExecStep.run("s", "true", Duration.ZERO)));
  }

  private static final PodSettings SETTINGS =
      PodSettings.defaults().withImage("img:1").withRuntimes("gvisor", "runc-trusted");

  @Test
  void othersCodeGetsTheSandboxRuntimeAndTrustedCodeTheTrustedOne() {
    assertEquals("gvisor", RunPod.of(SETTINGS, spec(), DID, "run-1").runtimeClassName());
    assertEquals(
        "runc-trusted",
        RunPod.of(SETTINGS, spec().withTrustedCode(true), DID, "run-1").runtimeClassName());
    PodSettings one = PodSettings.defaults().withRuntimes("gvisor", null);
    assertEquals(
        "gvisor", RunPod.of(one, spec().withTrustedCode(true), DID, "run-1").runtimeClassName());
    assertNull(RunPod.of(PodSettings.defaults(), spec(), DID, "run-1").runtimeClassName());
  }

  @Test
  void limitsAreSetOnlyWhereGivenAndMemoryIsRequestedInFull() {
    RunPod none = RunPod.of(SETTINGS, spec(), DID, "run-1");
    assertEquals(Map.of(), none.limits());
    assertEquals(Map.of(), none.requests());
    assertNull(none.workSizeLimit());
    RunPod all = RunPod.of(SETTINGS.withLimits(1.5, 2, 10), spec(), DID, "run-1");
    assertEquals(
        Map.of("cpu", "1500m", "memory", "2Gi", "ephemeral-storage", "10Gi"), all.limits());
    assertEquals(Map.of("cpu", "1500m", "memory", "2Gi"), all.requests());
    assertEquals("10Gi", all.workSizeLimit());
  }

  @Test
  void aRunOtherThanMainsRequestsAQuarterOfTheCpu() {
    RunPod background =
        RunPod.of(SETTINGS.withLimits(2, 0, 0), spec().withNiceness(10), DID, "run-1");
    assertEquals("500m", background.requests().get("cpu"));
    RunPod unlimited = RunPod.of(SETTINGS, spec().withNiceness(10), DID, "run-1");
    assertEquals("250m", unlimited.requests().get("cpu"));
  }

  @Test
  void theWorkflowsImageWinsOverTheDefault() {
    assertEquals("img:1", RunPod.of(SETTINGS, spec(), DID, "run-1").image());
    assertEquals(
        "other:2",
        RunPod.of(
                SETTINGS,
                spec().withOption(new dev.knotless.runner.exec.ContainerImage("other:2")),
                DID,
                "run-1")
            .image());
  }

  @Test
  void everyPodCarriesTheRunnersDidAsALabelAndExactlyAsAnAnnotation() {
    RunPod pod = RunPod.of(SETTINGS, spec(), DID, "run-42");
    assertEquals("knotless-run-42", pod.name());
    assertEquals("did.plc.abc123", pod.labels().get(RunPod.RUNNER_LABEL));
    assertEquals("run-42", pod.labels().get(RunPod.RUN_LABEL));
    assertEquals(DID, pod.annotations().get(RunPod.RUNNER_ANNOTATION));
  }

  @Test
  void namesAndLabelValuesAreWhatKubernetesAccepts() {
    String name = RunPod.podName("Run_" + "x".repeat(80));
    assertTrue(name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?") && name.length() <= 63, name);
    String label = RunPod.labelValue("did:web:" + "y".repeat(80) + ".example:");
    assertTrue(label.matches("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?") && label.length() <= 63);
  }

  @Test
  void thePodRunsOnlyTheIdleShellAndHoldsNoRunVariable() {
    RunPod pod = RunPod.of(SETTINGS, spec().withEnv(Map.of("TOKEN", "s3cret")), DID, "run-1");
    assertEquals(List.of("sh", "-c", Launcher.IDLE), pod.command());
    assertTrue(!pod.toString().contains("s3cret"), pod.toString());
  }
}
