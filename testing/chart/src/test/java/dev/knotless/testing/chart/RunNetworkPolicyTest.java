package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runtime.pods.UnknownFields;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a run pod can reach, read off the rendered NetworkPolicy as a packet filter would: an
 * address leaves only if some ipBlock holds it and none of that block's exceptions does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunNetworkPolicyTest {
  private NetworkPolicy defaults;
  private NetworkPolicy allFeatures;

  @BeforeAll
  void render() {
    defaults = runs(RenderedChart.render());
    allFeatures = runs(RenderedChart.render("all-features.yaml"));
  }

  /** The policy of the runs namespace (the release namespace has one of its own). */
  static NetworkPolicy runs(RenderedChart chart) {
    List<NetworkPolicy> there =
        chart.typed(NetworkPolicy.class).stream()
            .filter(p -> p.getMetadata().getNamespace().equals("knotless-runs"))
            .toList();
    assertEquals(1, there.size(), "one policy in the runs namespace");
    return there.get(0);
  }

  @Test
  void runPodsReachThePublicInternet() {
    for (String ip : List.of("1.1.1.1", "140.82.112.3", "2606:4700:4700::1111")) {
      assertTrue(reachable(allFeatures, ip), ip);
    }
  }

  @Test
  void runPodsCannotReachPrivateRangesLinkLocalOrLoopback() {
    for (NetworkPolicy policy : List.of(defaults, allFeatures)) {
      for (String ip :
          List.of(
              "10.0.0.1",
              "10.96.0.1",
              "172.16.0.1",
              "172.31.255.254",
              "192.168.1.1",
              "169.254.169.254",
              "100.64.0.1",
              "127.0.0.1",
              "fd00::1",
              "fe80::1",
              "::ffff:10.0.0.1",
              "::ffff:169.254.169.254")) {
        assertFalse(reachable(policy, ip), ip + " is reachable from a run pod");
      }
    }
  }

  @Test
  void runPodsCannotReachTheClusterRangesTheOperatorListed() {
    for (String ip : List.of("100.128.3.4", "198.18.0.10", "2001:db8:42::5")) {
      assertFalse(reachable(allFeatures, ip), ip);
      assertTrue(reachable(defaults, ip), ip + ": the test would prove nothing");
    }
  }

  @Test
  void nothingInTheClusterButDnsIsReachableAndNothingGetsIn() {
    for (NetworkPolicy policy : List.of(defaults, allFeatures)) {
      assertEquals("knotless-runs", policy.getMetadata().getNamespace());
      assertTrue(policy.getSpec().getPodSelector().getMatchLabels().isEmpty(), "every pod there");
      assertEquals(List.of("Ingress", "Egress"), policy.getSpec().getPolicyTypes());
      assertEquals(List.of(), policy.getSpec().getIngress(), "no ingress rule: nothing gets in");
      for (NetworkPolicyEgressRule rule : policy.getSpec().getEgress()) {
        for (NetworkPolicyPeer peer : rule.getTo()) {
          if (peer.getIpBlock() != null) {
            continue;
          }
          assertEquals(
              "kube-system",
              peer.getNamespaceSelector().getMatchLabels().get("kubernetes.io/metadata.name"));
          assertEquals("kube-dns", peer.getPodSelector().getMatchLabels().get("k8s-app"));
          assertTrue(
              rule.getPorts().stream().allMatch(p -> p.getPort().getIntVal() == 53),
              "a cluster peer other than DNS on port 53: " + rule);
        }
      }
    }
  }

  @Test
  void theStandaloneExampleFencesRunPodsTheSameWay() {
    Path file =
        RenderedChart.chartDir().resolve("../../deploy/networkpolicy-runs.yaml").normalize();
    var example = RenderedChart.parseFile(file).get(0).typed();
    assertTrue(example instanceof NetworkPolicy, file + " is not a NetworkPolicy");
    NetworkPolicy policy = (NetworkPolicy) example;
    assertEquals(List.of(), UnknownFields.in(policy));
    assertTrue(reachable(policy, "1.1.1.1"));
    for (String ip : List.of("10.1.2.3", "172.20.0.1", "192.168.0.1", "169.254.169.254")) {
      assertFalse(reachable(policy, ip), ip);
    }
  }

  /** Whether some ipBlock peer lets the address out (cluster DNS aside, which has no ipBlock). */
  static boolean reachable(NetworkPolicy policy, String ip) {
    return policy.getSpec().getEgress().stream()
        .flatMap(rule -> rule.getTo().stream())
        .filter(peer -> peer.getIpBlock() != null)
        .anyMatch(
            peer ->
                Cidr.parse(peer.getIpBlock().getCidr()).contains(ip)
                    && peer.getIpBlock().getExcept().stream()
                        .noneMatch(e -> Cidr.parse(e).contains(ip)));
  }
}
