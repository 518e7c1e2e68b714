package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplate;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What every run pod starts from: the sandbox, no token, limits, no host access. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunPodTemplateTest {
  /** The capabilities baseline Pod Security lets a pod add. */
  private static final Set<String> BASELINE_CAPABILITIES =
      Set.of(
          "AUDIT_WRITE",
          "CHOWN",
          "DAC_OVERRIDE",
          "FOWNER",
          "FSETID",
          "KILL",
          "MKNOD",
          "NET_BIND_SERVICE",
          "SETFCAP",
          "SETGID",
          "SETPCAP",
          "SETUID",
          "SYS_CHROOT");

  private Map<String, PodSpec> allFeatures;
  private Map<String, PodSpec> schedulerOnly;

  @BeforeAll
  void render() {
    allFeatures = templates(RenderedChart.render("all-features.yaml"));
    schedulerOnly = templates(RenderedChart.render(List.of(), Map.of("scheduler.enabled", true)));
  }

  private static Map<String, PodSpec> templates(RenderedChart chart) {
    Map<String, PodSpec> byName = new TreeMap<>();
    for (PodTemplate t : chart.typed(PodTemplate.class)) {
      assertEquals("knotless-runs", t.getMetadata().getNamespace());
      byName.put(t.getMetadata().getName(), t.getTemplate().getSpec());
    }
    return byName;
  }

  @Test
  void othersCodeRunsUnderGvisorAndVouchedCodeUnderTheTrustedRuntime() {
    assertEquals("runsc", allFeatures.get("ci-knotless-run-run").getRuntimeClassName());
    assertEquals(
        "runc-trusted", allFeatures.get("ci-knotless-run-run-trusted").getRuntimeClassName());
    assertEquals(
        "runsc",
        schedulerOnly.get("ci-knotless-run-run-trusted").getRuntimeClassName(),
        "with no trusted runtime named, vouched code stays in gVisor too");
  }

  @Test
  void runPodsHaveNoTokenNoServiceAddressesAndNoHostAccess() {
    for (var entry : allFeatures.entrySet()) {
      PodSpec pod = entry.getValue();
      String name = entry.getKey();
      assertEquals(Boolean.FALSE, pod.getAutomountServiceAccountToken(), name);
      assertEquals("knotless-run-pod", pod.getServiceAccountName(), name);
      assertEquals(Boolean.FALSE, pod.getEnableServiceLinks(), name);
      assertEquals("Never", pod.getRestartPolicy(), name);
      assertNull(pod.getHostNetwork(), name);
      assertNull(pod.getHostPID(), name);
      assertNull(pod.getHostIPC(), name);
      pod.getVolumes().forEach(v -> assertNull(v.getHostPath(), name + " " + v.getName()));
      assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
    }
  }

  @Test
  void runContainersAreBoundedAndCannotGainPrivilege() {
    for (var entry : allFeatures.entrySet()) {
      for (Container c : entry.getValue().getContainers()) {
        String where = entry.getKey() + "/" + c.getName();
        var limits = c.getResources().getLimits();
        for (String resource : List.of("cpu", "memory", "ephemeral-storage")) {
          assertNotNull(limits.get(resource), where + " has no " + resource + " limit");
        }
        var sc = c.getSecurityContext();
        assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), where);
        assertEquals(Boolean.FALSE, sc.getPrivileged(), where);
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop(), where);
        assertTrue(BASELINE_CAPABILITIES.containsAll(sc.getCapabilities().getAdd()), where);
      }
    }
  }

  @Test
  void aCapabilityBeyondBaselineIsRefused() {
    var e =
        assertThrows(
            RuntimeException.class,
            () ->
                RenderedChart.render(
                    List.of(),
                    Map.of(
                        "scheduler.enabled",
                        true,
                        "runs.containerSecurityContext.capabilities.add[0]",
                        "SYS_ADMIN")));
    assertTrue(String.valueOf(e.getMessage()).contains("capabilities"), e.getMessage());
  }
}
