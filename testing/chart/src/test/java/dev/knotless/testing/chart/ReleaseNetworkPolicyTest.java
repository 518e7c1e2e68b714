package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The release namespace's NetworkPolicy: it selects every pod of the chart's, and the only way in
 * is Prometheus' pods, on the metrics port.
 */
class ReleaseNetworkPolicyTest {
  @Test
  void everyServicePodTakesConnectionsOnlyFromPrometheusOnTheMetricsPort() {
    RenderedChart chart = RenderedChart.render("all-features.yaml");
    List<NetworkPolicy> here =
        chart.typed(NetworkPolicy.class).stream()
            .filter(p -> p.getMetadata().getNamespace().equals(RenderedChart.NAMESPACE))
            .toList();
    assertEquals(1, here.size());
    NetworkPolicy policy = here.get(0);
    assertEquals(List.of("Ingress"), policy.getSpec().getPolicyTypes());
    Map<String, String> selector = policy.getSpec().getPodSelector().getMatchLabels();
    for (Deployment d : chart.typed(Deployment.class)) {
      Map<String, String> labels = d.getSpec().getTemplate().getMetadata().getLabels();
      assertTrue(
          labels.entrySet().containsAll(selector.entrySet()),
          d.getMetadata().getName() + " is not selected, so it takes any connection");
    }
    assertEquals(1, policy.getSpec().getIngress().size());
    var rule = policy.getSpec().getIngress().get(0);
    assertEquals(1, rule.getFrom().size());
    var peer = rule.getFrom().get(0);
    assertEquals(null, peer.getIpBlock(), "no address range gets in");
    assertEquals(
        Map.of("kubernetes.io/metadata.name", "monitoring"),
        peer.getNamespaceSelector().getMatchLabels());
    assertEquals(
        Map.of("app.kubernetes.io/name", "prometheus"), peer.getPodSelector().getMatchLabels());
    assertEquals(1, rule.getPorts().size());
    assertEquals(9000, rule.getPorts().get(0).getPort().getIntVal(), "the management port only");
  }

  @Test
  void turningItOffLeavesTheRunPodFenceInPlace() {
    RenderedChart chart = RenderedChart.render(List.of(), Map.of("networkPolicy.enabled", false));
    List<NetworkPolicy> all = chart.typed(NetworkPolicy.class);
    assertEquals(1, all.size());
    assertEquals("knotless-runs", all.get(0).getMetadata().getNamespace());
  }
}
