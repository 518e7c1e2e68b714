package dev.knotless.testing.chart;

import static dev.knotless.testing.chart.ChartTest.env;
import static dev.knotless.testing.chart.ChartTest.pod;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the rendered chart gives each pod, with its defaults and with every optional feature on:
 * secrets only as references to Secrets the operator made, each service its own Kafka password, a
 * checked TLS connection to PostgreSQL, and pods with limits, no root, no capabilities, no host
 * paths and no service account token but the scheduler's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChartSecurityTest {
  private RenderedChart defaults;
  private RenderedChart allFeatures;

  @BeforeAll
  void render() {
    defaults = RenderedChart.render();
    allFeatures = RenderedChart.render("all-features.yaml");
  }

  Stream<RenderedChart> renders() {
    return Stream.of(defaults, allFeatures);
  }

  @Test
  void aPasswordPutInValuesIsRefusedWithAnErrorThatNamesTheKeyButNotTheValue() {
    String sentinel = "sentinel-Pa55word-7f3a9";
    for (String key : List.of("runnerAccount.password", "postgresql.password")) {
      var e =
          assertThrows(
              RuntimeException.class,
              () -> RenderedChart.render(List.of(), Map.of(key, sentinel)),
              key + " was accepted");
      String message = String.valueOf(e.getMessage());
      assertTrue(message.contains("password"), message);
      assertFalse(message.contains(sentinel), "the error echoes the secret: " + message);
    }
  }

  @ParameterizedTest
  @MethodSource("renders")
  void secretsReachPodsOnlyAsReferencesToSecretsTheOperatorMade(RenderedChart chart) {
    assertEquals(List.of(), chart.ofKind("Secret"), "the chart never makes a Secret");
    chart
        .podSpecs()
        .forEach(
            (name, pod) -> {
              for (Container c : pod.getContainers()) {
                for (EnvVar v : c.getEnv()) {
                  // A *_FILE variable holds a path to a mounted Secret, never its content.
                  if (v.getName().matches(".*(PASSWORD|USERNAME|IDENTIFIER|TOKEN|SECRET).*")
                      && !v.getName().endsWith("_FILE")) {
                    assertEquals(null, v.getValue(), name + " inlines " + v.getName());
                    assertNotNull(
                        v.getValueFrom().getSecretKeyRef(),
                        name + " " + v.getName() + " not from a Secret");
                  }
                }
              }
            });
    var reconciler = chart.podSpecs().get("ci-knotless-run-reconciler").getContainers().get(0);
    assertEquals(
        "knotless-run-postgresql",
        env(reconciler, "QUARKUS_DATASOURCE_PASSWORD").getValueFrom().getSecretKeyRef().getName());
    assertEquals(
        "knotless-run-account",
        env(reconciler, "KNOTLESS_PASSWORD").getValueFrom().getSecretKeyRef().getName());
  }

  @Test
  void withSaslEachServiceAuthenticatesToKafkaAsItselfWithItsPasswordFromTheSecret() {
    Map<String, String> users =
        Map.of(
            "ci-knotless-run-ingester", "ingester",
            "ci-knotless-run-reconciler", "reconciler",
            "ci-knotless-run-scheduler", "scheduler",
            "ci-knotless-run-check-writer", "check-writer");
    users.forEach(
        (workload, user) -> {
          var c = allFeatures.podSpecs().get(workload).getContainers().get(0);
          assertEquals("SASL_SSL", env(c, "KAFKA_SECURITY_PROTOCOL").getValue(), workload);
          assertEquals("SCRAM-SHA-512", env(c, "KAFKA_SASL_MECHANISM").getValue(), workload);
          var password = env(c, "KNOTLESS_KAFKA_PASSWORD").getValueFrom().getSecretKeyRef();
          assertEquals("kafka-users", password.getName(), workload);
          assertEquals(user + "-password", password.getKey(), workload);
          assertEquals(
              user + "-username",
              env(c, "KNOTLESS_KAFKA_USERNAME").getValueFrom().getSecretKeyRef().getKey());
          assertEquals(
              "org.apache.kafka.common.security.scram.ScramLoginModule required"
                  + " username=\"$(KNOTLESS_KAFKA_USERNAME)\""
                  + " password=\"$(KNOTLESS_KAFKA_PASSWORD)\";",
              env(c, "KAFKA_SASL_JAAS_CONFIG").getValue(),
              workload);
        });
    var plain = defaults.podSpecs().get("ci-knotless-run-ingester").getContainers().get(0);
    assertTrue(plain.getEnv().stream().noneMatch(v -> v.getName().startsWith("KAFKA_SASL")));
  }

  @Test
  void postgresqlOverTlsChecksTheServerAgainstTheGivenCa() {
    for (String workload : List.of("ci-knotless-run-reconciler", "ci-knotless-run-scheduler")) {
      var pod = allFeatures.podSpecs().get(workload);
      var c = pod.getContainers().get(0);
      assertEquals(
          "jdbc:postgresql://postgresql:5432/knotless_run?sslmode=verify-full"
              + "&sslrootcert=/etc/knotless/postgresql-ca/ca.crt",
          env(c, "QUARKUS_DATASOURCE_JDBC_URL").getValue(),
          workload);
      // JDBC is the one way in: no reactive datasource for the CA to be missed on.
      assertTrue(
          c.getEnv().stream().noneMatch(v -> v.getName().startsWith("QUARKUS_DATASOURCE_REACTIVE")),
          workload);
      assertTrue(
          pod.getVolumes().stream()
              .anyMatch(
                  v ->
                      v.getSecret() != null
                          && v.getSecret().getSecretName().equals("postgresql-ca")),
          workload);
      assertTrue(
          c.getVolumeMounts().stream()
              .anyMatch(m -> m.getMountPath().equals("/etc/knotless/postgresql-ca")),
          workload);
    }
    var plain = defaults.podSpecs().get("ci-knotless-run-reconciler").getContainers().get(0);
    assertEquals(
        "jdbc:postgresql://postgresql:5432/knotless_run",
        env(plain, "QUARKUS_DATASOURCE_JDBC_URL").getValue());
  }

  @Test
  void theIngesterNeverSeesTheRunnersPassword() {
    var ingester = defaults.podSpecs().get("ci-knotless-run-ingester").getContainers().get(0);
    assertTrue(ingester.getEnv().stream().noneMatch(v -> v.getName().equals("KNOTLESS_PASSWORD")));
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyContainerHasLimitsAndRunsAsNonRootWithNoCapabilities(RenderedChart chart) {
    chart
        .podSpecs()
        .forEach(
            (name, pod) -> {
              var podSc = pod.getSecurityContext();
              assertEquals(Boolean.TRUE, podSc.getRunAsNonRoot(), name);
              assertNotEquals(0L, podSc.getRunAsUser(), name);
              assertEquals("RuntimeDefault", podSc.getSeccompProfile().getType(), name);
              List<Container> all =
                  Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream())
                      .toList();
              for (Container c : all) {
                var limits = c.getResources().getLimits();
                assertAll(
                    name + "/" + c.getName(),
                    () -> assertNotNull(limits.get("cpu"), "cpu limit"),
                    () -> assertNotNull(limits.get("memory"), "memory limit"),
                    () -> assertEquals(Boolean.TRUE, c.getSecurityContext().getRunAsNonRoot()),
                    () ->
                        assertEquals(
                            Boolean.FALSE, c.getSecurityContext().getAllowPrivilegeEscalation()),
                    () ->
                        assertEquals(
                            Boolean.TRUE, c.getSecurityContext().getReadOnlyRootFilesystem()),
                    () ->
                        assertEquals(
                            List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop()),
                    () ->
                        assertEquals(List.of(), c.getSecurityContext().getCapabilities().getAdd()));
              }
            });
  }

  @ParameterizedTest
  @MethodSource("renders")
  void noPodMountsAHostPath(RenderedChart chart) {
    chart
        .podSpecs()
        .forEach(
            (name, pod) ->
                pod.getVolumes()
                    .forEach(
                        v -> assertEquals(null, v.getHostPath(), name + " volume " + v.getName())));
    assertFalse(chart.text.contains("hostPath"), "hostPath appears in the rendered chart");
    assertFalse(chart.text.contains("hostNetwork: true"));
    assertFalse(chart.text.contains("hostPID: true"));
  }

  @ParameterizedTest
  @MethodSource("renders")
  void onlyTheSchedulerGetsAServiceAccountToken(RenderedChart chart) {
    chart
        .podSpecs()
        .forEach(
            (name, pod) ->
                assertEquals(
                    name.endsWith("-scheduler"), pod.getAutomountServiceAccountToken(), name));
    for (ServiceAccount sa : chart.typed(ServiceAccount.class)) {
      String name = sa.getMetadata().getName();
      assertEquals(name.endsWith("-scheduler"), sa.getAutomountServiceAccountToken(), name);
    }
    // Run pods are made by the scheduler with automountServiceAccountToken false (RunPods);
    // the chart makes no account for them to hold.
    assertTrue(
        chart.typed(ServiceAccount.class).stream()
            .noneMatch(sa -> sa.getMetadata().getNamespace().equals("knotless-runs")));
  }
}
