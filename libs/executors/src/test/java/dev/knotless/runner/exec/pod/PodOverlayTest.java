package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.RunSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodOverlayTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode json(String s) throws Exception {
    return (ObjectNode) JSON.readTree(s.replace('\'', '"'));
  }

  private static String refusal(String overlay) {
    return assertThrows(
            IllegalArgumentException.class, () -> PodOverlay.fromJson(overlay.replace('\'', '"')))
        .getMessage();
  }

  @Test
  void everySettingIsReadFromTheOperatorsFile() {
    PodOverlay o =
        PodOverlay.fromJson(
            """
            {"imagePullSecrets": ["registry-a", "registry.b"],
             "nodeSelector": {"knotless.dev/runs": "true"},
             "tolerations": [
               {"key": "runs", "operator": "Equal", "value": "only", "effect": "NoSchedule"},
               {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
             "priorityClassName": "ci-low",
             "podSpecPatch": {"dnsPolicy": "None"}}
            """);
    assertEquals(List.of("registry-a", "registry.b"), o.imagePullSecrets());
    assertEquals(Map.of("knotless.dev/runs", "true"), o.nodeSelector());
    assertEquals(
        List.of(
            new PodOverlay.Toleration("runs", "Equal", "only", "NoSchedule", null),
            new PodOverlay.Toleration(null, "Exists", null, "NoExecute", 30L)),
        o.tolerations());
    assertEquals("ci-low", o.priorityClassName());
    assertEquals("{\"dnsPolicy\":\"None\"}", o.specPatch().json());
  }

  @Test
  void emptyValuesAsTheChartRendersThemAreNoOverlay() {
    PodOverlay o =
        PodOverlay.fromJson(
            """
            {"imagePullSecrets":[],"nodeSelector":{},"podSpecPatch":{},"priorityClassName":"",\
            "tolerations":[]}""");
    assertTrue(o.isEmpty());
    assertNull(o.priorityClassName());
    assertTrue(PodOverlay.fromJson("{}").isEmpty());
  }

  @Test
  void aPatchNamingAGuaranteedFieldIsRefusedWithTheFieldNamed() {
    for (String field :
        List.of("runtimeClassName", "securityContext", "automountServiceAccountToken")) {
      String message = refusal("{'podSpecPatch': {'" + field + "': null}}");
      assertTrue(message.startsWith("podSpecPatch." + field + ": "), message);
      assertTrue(message.contains("may not set it"), message);
    }
    String both =
        refusal("{'podSpecPatch': {'volumes': [], 'hostNetwork': true, 'dnsPolicy': 'x'}}");
    assertTrue(both.contains("podSpecPatch.volumes") && both.contains("podSpecPatch.hostNetwork"));
    assertTrue(!both.contains("dnsPolicy"), both);
  }

  @Test
  void aWrongValueIsRefusedWithWhereItIs() {
    assertEquals(
        "imagePullSecrets[1] Bad_Name: not a Kubernetes object name",
        refusal("{'imagePullSecrets': ['ok', 'Bad_Name']}"));
    assertEquals(
        "nodeSelector.gpu: expected a string, got true",
        refusal("{'nodeSelector': {'gpu': true}}"));
    assertEquals(
        "tolerations[0].effect NoRun: expected NoSchedule, PreferNoSchedule or NoExecute",
        refusal("{'tolerations': [{'key': 'a', 'value': 'b', 'effect': 'NoRun'}]}"));
    assertEquals(
        "tolerations[0].tolerationSeconds: only with effect NoExecute",
        refusal("{'tolerations': [{'operator': 'Exists', 'tolerationSeconds': 5}]}"));
    assertEquals(
        "tolerations[0].tolerationSecs: not a field of a toleration",
        refusal("{'tolerations': [{'operator': 'Exists', 'tolerationSecs': 5}]}"));
    assertEquals("nodeSelectors: not a run pod setting", refusal("{'nodeSelectors': {}}"));
    assertTrue(
        refusal("{'podSpecPatch': []}").startsWith("podSpecPatch: expected an object"),
        "a patch is an object");
  }

  @Test
  void aPatchMergesObjectsReplacesListsAndRemovesWithNull() throws Exception {
    SpecPatch patch =
        SpecPatch.of(
            json(
                "{'nodeSelector': {'zone': 'b', 'old': null}, 'tolerations': [{'operator':"
                    + " 'Exists'}], 'terminationGracePeriodSeconds': null, 'dnsPolicy': 'None'}"),
            "podSpecPatch");
    ObjectNode spec =
        json(
            "{'nodeSelector': {'pool': 'runs', 'old': 'x'}, 'tolerations': [{'key': 'a'}, {'key':"
                + " 'b'}], 'terminationGracePeriodSeconds': 0, 'restartPolicy': 'Never'}");
    ObjectNode before = spec.deepCopy();
    assertEquals(
        json(
            "{'nodeSelector': {'pool': 'runs', 'zone': 'b'}, 'tolerations': [{'operator':"
                + " 'Exists'}], 'restartPolicy': 'Never', 'dnsPolicy': 'None'}"),
        patch.applyTo(spec));
    assertEquals(before, spec, "the spec given is left as it was");
  }

  @Test
  void aRunPodCarriesTheOverlayOfItsSettings() {
    PodOverlay o = PodOverlay.fromJson("{\"priorityClassName\": \"ci\"}");
    RunSpec spec =
        RunSpec.of(
            Path.of("/m"), "a".repeat(40), List.of(ExecStep.run("s", "true", Duration.ZERO)));
    assertEquals(
        o, RunPod.of(PodSettings.defaults().withOverlay(o), spec, "did:plc:a", "r").overlay());
    assertEquals(
        PodOverlay.NONE, RunPod.of(PodSettings.defaults(), spec, "did:plc:a", "r").overlay());
  }
}
