package dev.knotless.testing.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka as the chart makes it: a Strimzi KafkaUser per service holding exactly the grants the
 * services' own tests run under, each service reading its password from the Secret Strimzi makes,
 * and the topics with their partitions and retention, as KafkaTopics or made by a hook Job.
 */
class KafkaChartTest {
  private static final Map<String, String> USERS =
      Map.of(
          "ingester", "ci-knotless-run-kafka-ingester",
          "reconciler", "ci-knotless-run-kafka-reconciler",
          "scheduler", "ci-knotless-run-kafka-scheduler",
          "check-writer", "ci-knotless-run-kafka-check-writer");

  @Test
  void eachServiceGetsAKafkaUserWithTheGrantsTheAuthenticatedTestBrokerGivesIt() throws Exception {
    RenderedChart chart = RenderedChart.render("strimzi.yaml");
    Map<String, Set<String>> granted = new TreeMap<>();
    for (var doc : chart.ofKind("KafkaUser")) {
      JsonNode spec = doc.tree().path("spec");
      assertEquals("scram-sha-512", spec.path("authentication").path("type").asText());
      assertEquals(
          "main", doc.tree().path("metadata").path("labels").path("strimzi.io/cluster").asText());
      String service =
          USERS.entrySet().stream()
              .filter(e -> e.getValue().equals(doc.name()))
              .map(Map.Entry::getKey)
              .findFirst()
              .orElseThrow(() -> new AssertionError("a KafkaUser of no service: " + doc.name()));
      Set<String> grants = granted.computeIfAbsent(service, s -> new TreeSet<>());
      for (JsonNode acl : spec.path("authorization").path("acls")) {
        String type = acl.path("resource").path("type").asText();
        String name = acl.path("resource").path("name").asText();
        assertEquals("literal", acl.path("resource").path("patternType").asText());
        List<String> ops = new java.util.ArrayList<>();
        acl.path("operations").forEach(o -> ops.add(o.asText()));
        if (type.equals("topic") && ops.contains("Write")) {
          assertEquals(List.of("Write", "Create", "Describe"), ops, doc.name() + " " + name);
          grants.add("write:" + name);
        } else if (type.equals("topic")) {
          assertEquals(List.of("Read", "Describe"), ops, doc.name() + " " + name);
          grants.add("read:" + name);
        } else {
          assertEquals("group", type, doc.name());
          assertEquals(List.of("Read"), ops);
          grants.add("group:" + name);
        }
      }
    }
    Map<String, Set<String>> expected = testBrokerGrants();
    // The test broker lets a reader read every group; the chart names the one group it reads as.
    expected.get("reconciler").add("group:knotless-reconciler");
    expected.get("check-writer").add("group:knotless-check-writer");
    assertEquals(expected, granted);
  }

  @Test
  void servicesReadTheirPasswordFromStrimzisSecretAndNeverSeeAnother() {
    RenderedChart chart = RenderedChart.render("strimzi.yaml");
    chart
        .podSpecs()
        .forEach(
            (deployment, spec) -> {
              String service = deployment.substring("ci-knotless-run-".length());
              Map<String, EnvVar> env = new TreeMap<>();
              spec.getContainers().get(0).getEnv().forEach(e -> env.put(e.getName(), e));
              assertEquals(USERS.get(service), env.get("KNOTLESS_KAFKA_USERNAME").getValue());
              var ref = env.get("KNOTLESS_KAFKA_PASSWORD").getValueFrom().getSecretKeyRef();
              assertEquals(USERS.get(service), ref.getName(), deployment);
              assertEquals("password", ref.getKey());
              assertEquals("SCRAM-SHA-512", env.get("KAFKA_SASL_MECHANISM").getValue());
              assertTrue(
                  env.get("KAFKA_SASL_JAAS_CONFIG")
                      .getValue()
                      .contains("$(KNOTLESS_KAFKA_PASSWORD)"),
                  "the password reaches the JAAS line by reference only");
            });
  }

  @Test
  void strimziUsersNeedSaslScramAndACluster() {
    for (var sets :
        List.of(
            Map.<String, Object>of("kafka.strimzi.users", true, "kafka.strimzi.cluster", "main"),
            Map.<String, Object>of(
                "kafka.strimzi.users",
                true,
                "kafka.securityProtocol",
                "SASL_SSL",
                "kafka.sasl.mechanism",
                "PLAIN",
                "kafka.strimzi.cluster",
                "main"),
            Map.<String, Object>of(
                "kafka.strimzi.users", true, "kafka.securityProtocol", "SASL_SSL"))) {
      var e = assertThrows(RuntimeException.class, () -> RenderedChart.render(List.of(), sets));
      assertTrue(String.valueOf(e.getMessage()).contains("kafka."), sets + ": " + e.getMessage());
    }
  }

  @Test
  void strimziTopicsCarryPartitionsAndRetention() {
    RenderedChart chart =
        RenderedChart.render(
            List.of(RenderedChart.resource("strimzi.yaml")),
            Map.of("kafka.topics.doorbells.partitions", 24));
    Map<String, JsonNode> topics = new TreeMap<>();
    chart
        .ofKind("KafkaTopic")
        .forEach(d -> topics.put(d.tree().path("spec").path("topicName").asText(), d.tree()));
    assertEquals(
        Set.of("knotless.doorbells", "knotless.run-events", "knotless.run-events.dead"),
        topics.keySet(),
        "the topics the services' configuration names");
    JsonNode doorbells = topics.get("knotless.doorbells").path("spec");
    assertEquals(24, doorbells.path("partitions").asInt());
    assertEquals(3, doorbells.path("replicas").asInt());
    assertEquals(86_400_000L, doorbells.path("config").path("retention.ms").asLong());
    assertEquals(
        2_592_000_000L,
        topics
            .get("knotless.run-events.dead")
            .path("spec")
            .path("config")
            .path("retention.ms")
            .asLong());
    assertTrue(chart.ofKind("Job").isEmpty());
  }

  @Test
  void theTopicJobIsAPreInstallHookThatMakesGrowsAndSetsRetention(@TempDir Path copy)
      throws IOException {
    Path template = RenderedChart.chartDir().resolve("templates/kafka-topics.yaml");
    String source = Files.readString(template);
    assertTrue(
        source.contains("helm.sh/hook: pre-install,pre-upgrade"), "runs before the services");
    // The embedded Helm's template leaves hooks out (as an install prints them apart): render a
    // copy of the chart with the hook annotation taken off to see the Job it makes.
    copyTree(RenderedChart.chartDir(), copy);
    Files.writeString(
        copy.resolve("templates/kafka-topics.yaml"),
        source.replace("helm.sh/hook: pre-install,pre-upgrade", "knotless.dev/was-hook: \"true\""));
    var template2 =
        new com.marcnuri.helm.Helm(copy)
            .template()
            .withName(RenderedChart.RELEASE)
            .withNamespace(RenderedChart.NAMESPACE)
            .withKubeVersion(RenderedChart.KUBE_VERSION)
            .set("kafka.topics.create", "job")
            .set("kafka.topics.runEvents.partitions", 6)
            .set("kafka.securityProtocol", "SASL_SSL")
            .set("kafka.sasl.existingSecret", "kafka-users")
            .set("kafka.topics.job.existingSecret", "kafka-admin");
    List<RenderedChart.Doc> docs = RenderedChart.parse(template2.call());
    Job job =
        docs.stream()
            .map(RenderedChart.Doc::typed)
            .filter(Job.class::isInstance)
            .map(Job.class::cast)
            .findFirst()
            .orElseThrow();
    var pod = job.getSpec().getTemplate().getSpec();
    assertEquals("Never", pod.getRestartPolicy());
    assertEquals(false, pod.getAutomountServiceAccountToken());
    var c = pod.getContainers().get(0);
    assertEquals(true, c.getSecurityContext().getReadOnlyRootFilesystem());
    String script = String.join("\n", c.getArgs());
    assertTrue(script.contains("topic knotless.doorbells 12 3 86400000"), script);
    assertTrue(script.contains("topic knotless.run-events 6 3 604800000"), script);
    assertTrue(script.contains("topic knotless.run-events.dead 1 3 2592000000"), script);
    assertTrue(script.contains("--if-not-exists") && script.contains("--alter --topic"), script);
    assertTrue(script.contains("/etc/kafka-client/client.properties"), script);
    assertTrue(
        pod.getVolumes().stream()
            .anyMatch(
                v -> v.getSecret() != null && "kafka-admin".equals(v.getSecret().getSecretName())),
        "the admin's client properties come from the operator's Secret");
    var e =
        assertThrows(
            RuntimeException.class,
            () ->
                RenderedChart.render(
                    List.of(),
                    Map.of(
                        "kafka.topics.create", "job",
                        "kafka.securityProtocol", "SASL_SSL",
                        "kafka.sasl.existingSecret", "kafka-users")));
    assertTrue(e.getMessage().contains("kafka.topics.job.existingSecret"), e.getMessage());
  }

  @Test
  void defaultPartitionsLeaveRoomForEveryReconcilerTheAutoscalerMayStart() throws IOException {
    JsonNode values =
        RenderedChart.YAML.readTree(RenderedChart.chartDir().resolve("values.yaml").toFile());
    int doorbells =
        values.path("kafka").path("topics").path("doorbells").path("partitions").asInt();
    int runEvents =
        values.path("kafka").path("topics").path("runEvents").path("partitions").asInt();
    assertTrue(
        values.path("autoscaling").path("reconciler").path("maxReplicas").asInt() <= doorbells);
    assertTrue(values.path("checkWriter").path("replicas").asInt() <= runEvents);
  }

  /** What testing/infra's KafkaBroker.SERVICE_ACLS grants, read from its source: user to grants. */
  static Map<String, Set<String>> testBrokerGrants() throws IOException {
    Path source =
        RenderedChart.chartDir()
            .resolve(
                "../../testing/infra/src/main/java/dev/knotless/testing/infra/KafkaBroker.java")
            .normalize();
    String text = Files.readString(source);
    Matcher block =
        Pattern.compile("SERVICE_ACLS\\s*=\\s*((?:\\s*\\+?\\s*\"[^\"]*\")+)\\s*;").matcher(text);
    assertTrue(block.find(), "SERVICE_ACLS in " + source);
    StringBuilder acls = new StringBuilder();
    Matcher literal = Pattern.compile("\"([^\"]*)\"").matcher(block.group(1));
    while (literal.find()) {
      acls.append(literal.group(1));
    }
    Map<String, Set<String>> grants = new TreeMap<>();
    for (String entry : acls.toString().split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] f = entry.split(":", 3);
      grants.computeIfAbsent(f[0], u -> new TreeSet<>()).add(f[1] + ":" + f[2]);
    }
    assertEquals(USERS.keySet(), grants.keySet(), "one user per service");
    return grants;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
