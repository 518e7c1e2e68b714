package dev.knotless.testing.chart;

import static dev.knotless.testing.chart.ChartTest.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The scheduler's Deployment and what it may do: every setting it reads comes from values (the run
 * pod is built from them, not from PodTemplates), and its Roles grant exactly what the Fabric8
 * client of runtime/pods and its leader election call, no more.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulerChartTest {
  /**
   * Every grant, as {@code namespace apiGroup resource verb [name]}: Fabric8PodApi creates, gets,
   * lists and watches (by label) and deletes pods and execs into them, and lists a pod's events
   * (its image's pull time); leader election creates its Lease, then gets and updates that one.
   * Anything beyond this list is a grant nothing uses.
   */
  static final Set<String> GRANTS =
      Set.of(
          "knotless-runs core pods create",
          "knotless-runs core pods get",
          "knotless-runs core pods list",
          "knotless-runs core pods watch",
          "knotless-runs core pods delete",
          "knotless-runs core pods/exec create",
          "knotless-runs core pods/exec get",
          "knotless-runs core events list",
          "knotless coordination.k8s.io leases create",
          "knotless coordination.k8s.io leases get ci-knotless-run-scheduler",
          "knotless coordination.k8s.io leases update ci-knotless-run-scheduler");

  private RenderedChart chart;
  private Container scheduler;

  @BeforeAll
  void render() {
    chart = RenderedChart.render("all-features.yaml");
    scheduler = ChartTest.pod(chart, "scheduler").getContainers().get(0);
  }

  @Test
  void theRolesGrantExactlyWhatTheSchedulerCallsAndNothingClusterWide() {
    assertEquals(List.of(), chart.ofKind("ClusterRole"));
    assertEquals(List.of(), chart.ofKind("ClusterRoleBinding"));
    assertEquals(new TreeSet<>(GRANTS), grants(chart));
  }

  /** Every grant the chart's Roles make, in the form of {@link #GRANTS}. */
  static Set<String> grants(RenderedChart chart) {
    Set<String> granted = new TreeSet<>();
    for (Role role : chart.typed(Role.class)) {
      for (var rule : role.getRules()) {
        for (String group : rule.getApiGroups()) {
          for (String resource : rule.getResources()) {
            for (String verb : rule.getVerbs()) {
              List<String> names = rule.getResourceNames();
              for (String name : names.isEmpty() ? List.of("") : names) {
                granted.add(
                    (role.getMetadata().getNamespace()
                            + " "
                            + (group.isEmpty() ? "core" : group)
                            + " "
                            + resource
                            + " "
                            + verb
                            + " "
                            + name)
                        .strip());
              }
            }
          }
        }
      }
    }
    return granted;
  }

  @Test
  void theRolesAreBoundToTheSchedulersAccountOnly() {
    List<RoleBinding> bindings = chart.typed(RoleBinding.class);
    assertEquals(2, bindings.size());
    Set<String> roles = new TreeSet<>();
    for (RoleBinding b : bindings) {
      roles.add(b.getMetadata().getNamespace() + "/" + b.getRoleRef().getName());
      assertEquals(1, b.getSubjects().size());
      assertEquals("ci-knotless-run-scheduler", b.getSubjects().get(0).getName());
      assertEquals(RenderedChart.NAMESPACE, b.getSubjects().get(0).getNamespace());
    }
    assertEquals(
        Set.of(
            "knotless-runs/ci-knotless-run-scheduler", "knotless/ci-knotless-run-scheduler-lease"),
        roles);
  }

  @Test
  void theSchedulerIsToldEverythingARunPodIsMadeOfFromValues() {
    Map<String, String> want =
        Map.ofEntries(
            Map.entry("KNOTLESS_SCHEDULER_NAMESPACE", "knotless-runs"),
            Map.entry("KNOTLESS_SCHEDULER_RUNTIME_CLASS", "runsc"),
            Map.entry("KNOTLESS_SCHEDULER_TRUSTED_RUNTIME_CLASS", "runc-trusted"),
            Map.entry("KNOTLESS_SCHEDULER_RUN_IMAGE", "debian:bookworm-slim"),
            Map.entry("KNOTLESS_SCHEDULER_JOBS", "8"),
            Map.entry("KNOTLESS_SCHEDULER_PENDING_TIMEOUT", "300s"),
            Map.entry("KNOTLESS_SCHEDULER_WATCH_RESYNC", "30s"),
            Map.entry("KNOTLESS_SCHEDULER_CPUS", "1.5"),
            Map.entry("KNOTLESS_SCHEDULER_MEMORY", "6"),
            Map.entry("KNOTLESS_SCHEDULER_EPHEMERAL_STORAGE", "20"),
            Map.entry("KNOTLESS_SCHEDULER_RUN_AS_USER", "1000"),
            Map.entry("KNOTLESS_SCHEDULER_LEASE_NAME", "ci-knotless-run-scheduler"),
            Map.entry("KNOTLESS_SCHEDULER_LEASE_NAMESPACE", RenderedChart.NAMESPACE),
            Map.entry("KNOTLESS_SCHEDULER_SECRETS_FILE", "/etc/knotless/secrets/secrets.json"),
            Map.entry("KNOTLESS_CACHE_DIR", "/var/cache/knotless"),
            Map.entry("KNOTLESS_SCHEDULER_WORK", "/var/lib/knotless/work"));
    want.forEach((name, value) -> assertEquals(value, env(scheduler, name).getValue(), name));
    // The root filesystem is read-only: mirrors and checkouts go to emptyDirs of their own.
    var pod = ChartTest.pod(chart, "scheduler");
    for (String[] v :
        new String[][] {{"cache", "/var/cache/knotless"}, {"work", "/var/lib/knotless/work"}}) {
      assertTrue(
          pod.getVolumes().stream()
              .anyMatch(x -> x.getName().equals(v[0]) && x.getEmptyDir() != null),
          v[0]);
      assertTrue(
          scheduler.getVolumeMounts().stream()
              .anyMatch(m -> m.getName().equals(v[0]) && m.getMountPath().equals(v[1])),
          v[1]);
    }
    assertEquals(
        "metadata.name",
        env(scheduler, "KNOTLESS_SCHEDULER_IDENTITY").getValueFrom().getFieldRef().getFieldPath());
    for (String name :
        List.of("KAFKA_BOOTSTRAP_SERVERS", "QUARKUS_DATASOURCE_JDBC_URL", "KNOTLESS_IDENTIFIER")) {
      env(scheduler, name);
    }
    assertEquals(
        "knotless-run-account",
        env(scheduler, "KNOTLESS_PASSWORD").getValueFrom().getSecretKeyRef().getName());
    assertEquals(
        "knotless-run-postgresql",
        env(scheduler, "QUARKUS_DATASOURCE_PASSWORD").getValueFrom().getSecretKeyRef().getName());
  }

  @Test
  void theSecretsFileIsMountedReadOnlyFromTheOperatorsSecretAndOnlyIntoTheScheduler() {
    var pod = ChartTest.pod(chart, "scheduler");
    var volume =
        pod.getVolumes().stream()
            .filter(v -> v.getName().equals("secrets"))
            .findFirst()
            .orElseThrow();
    assertEquals("runner-secrets", volume.getSecret().getSecretName());
    assertEquals(0400, volume.getSecret().getDefaultMode());
    var mount =
        scheduler.getVolumeMounts().stream()
            .filter(m -> m.getName().equals("secrets"))
            .findFirst()
            .orElseThrow();
    assertEquals(Boolean.TRUE, mount.getReadOnly());
    assertEquals("/etc/knotless/secrets", mount.getMountPath());
    chart
        .podSpecs()
        .forEach(
            (name, p) -> {
              if (!name.endsWith("-scheduler")) {
                // The PostgreSQL CA is a certificate, not a secret: it may go to the reconciler.
                assertTrue(
                    p.getVolumes().stream()
                        .allMatch(
                            v -> v.getSecret() == null || v.getName().equals("postgresql-ca")),
                    name);
              }
            });
    var withoutFile =
        ChartTest.pod(
            RenderedChart.render(List.of(), Map.of("scheduler.enabled", true)), "scheduler");
    assertTrue(
        withoutFile.getContainers().get(0).getEnv().stream()
            .map(EnvVar::getName)
            .noneMatch(n -> n.equals("KNOTLESS_SCHEDULER_SECRETS_FILE")));
  }

  @Test
  void theReconcilersOnlyQueueRunsWithTheSchedulerOnOrOff() {
    for (RenderedChart c :
        List.of(
            chart,
            RenderedChart.render(),
            RenderedChart.render(List.of(), Map.of("scheduler.enabled", false)))) {
      var reconciler = ChartTest.pod(c, "reconciler").getContainers().get(0);
      assertEquals("queue", env(reconciler, "KNOTLESS_RECONCILER_WORKER_MODE").getValue());
    }
  }

  @Test
  void theSchedulerRunsWithAStandbyAndAHealthCheckedPod() {
    var d =
        chart.typed(io.fabric8.kubernetes.api.model.apps.Deployment.class).stream()
            .filter(x -> x.getMetadata().getName().equals("ci-knotless-run-scheduler"))
            .findFirst()
            .orElseThrow();
    assertEquals(2, d.getSpec().getReplicas(), "one leader, one standby");
    assertEquals(
        "knotless-run/scheduler:1.2.3", scheduler.getImage().replace("registry.example.com/", ""));
  }
}
