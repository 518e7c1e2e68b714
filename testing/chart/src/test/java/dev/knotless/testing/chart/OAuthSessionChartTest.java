package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The runner's OAuth session in place of its app password: the Secret's file mounted read-only into
 * the three services that log in, named by {@code KNOTLESS_OAUTH_SESSION}, with no password beside
 * it; the ingester, which never logs in, gets neither.
 */
class OAuthSessionChartTest {
  private static final List<String> LOGGING_IN = List.of("reconciler", "scheduler", "check-writer");

  @Test
  void theSessionSecretIsMountedReadOnlyInPlaceOfThePassword() {
    RenderedChart chart =
        RenderedChart.render(
            List.of(RenderedChart.resource("all-features.yaml")),
            Map.of(
                "runnerAccount.oauthSession.existingSecret", "runner-oauth",
                "runnerAccount.oauthSession.key", "runner.json"));
    for (String component : LOGGING_IN) {
      PodSpec pod = ChartTest.pod(chart, component);
      Container c = pod.getContainers().get(0);
      assertEquals(
          "/etc/knotless/oauth-session/runner.json",
          ChartTest.env(c, "KNOTLESS_OAUTH_SESSION").getValue(),
          component);
      assertTrue(
          c.getEnv().stream().map(EnvVar::getName).noneMatch("KNOTLESS_PASSWORD"::equals),
          component + ": " + c.getEnv());
      assertTrue(
          c.getVolumeMounts().stream()
              .anyMatch(
                  m ->
                      m.getName().equals("oauth-session")
                          && m.getMountPath().equals("/etc/knotless/oauth-session")
                          && Boolean.TRUE.equals(m.getReadOnly())),
          component);
      Volume v =
          pod.getVolumes().stream()
              .filter(x -> x.getName().equals("oauth-session"))
              .findFirst()
              .orElseThrow();
      assertEquals("runner-oauth", v.getSecret().getSecretName(), component);
      assertEquals(0400, v.getSecret().getDefaultMode().intValue(), component);
      assertEquals("runner.json", v.getSecret().getItems().get(0).getKey(), component);
    }
    Container ingester = ChartTest.pod(chart, "ingester").getContainers().get(0);
    assertTrue(
        ingester.getEnv().stream()
            .map(EnvVar::getName)
            .noneMatch(n -> n.startsWith("KNOTLESS_OAUTH")),
        ingester.getEnv().toString());
  }

  @Test
  void unsetTheServicesKeepTheAppPasswordAndMountNoSession() {
    RenderedChart chart = RenderedChart.render("all-features.yaml");
    for (String component : LOGGING_IN) {
      PodSpec pod = ChartTest.pod(chart, component);
      Container c = pod.getContainers().get(0);
      assertEquals(
          "password",
          ChartTest.env(c, "KNOTLESS_PASSWORD").getValueFrom().getSecretKeyRef().getKey(),
          component);
      assertTrue(
          c.getEnv().stream().map(EnvVar::getName).noneMatch("KNOTLESS_OAUTH_SESSION"::equals),
          component);
      assertTrue(
          pod.getVolumes().stream().noneMatch(x -> x.getName().equals("oauth-session")), component);
    }
  }

  @Test
  void aKeyThatIsNoFileNameIsRefused() {
    assertThrows(
        RuntimeException.class,
        () ->
            RenderedChart.render(
                List.of(RenderedChart.resource("all-features.yaml")),
                Map.of(
                    "runnerAccount.oauthSession.existingSecret", "runner-oauth",
                    "runnerAccount.oauthSession.key", "../x")));
  }
}
