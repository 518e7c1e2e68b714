package dev.knotless.testing.kafkabroker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * SASL PLAIN on both listeners, StandardAuthorizer, and the ACLs each service is granted. Users and
 * passwords come from the environment only, never from arguments or the properties file.
 */
final class Sasl {
  private Sasl() {}

  static void configure(Properties p, int port, int controllerPort) {
    p.put(
        "listeners",
        "SASL_PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "SASL_PLAINTEXT://127.0.0.1:" + port);
    p.put(
        "listener.security.protocol.map",
        "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
    p.put("inter.broker.listener.name", "SASL_PLAINTEXT");
    p.put("sasl.enabled.mechanisms", "PLAIN");
    p.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
    p.put("sasl.mechanism.controller.protocol", "PLAIN");
    p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    p.put("allow.everyone.if.no.acl.found", "false");
  }

  /** {@code admin=<password>,<user>=<password>,...}: the first is the broker's own, super user. */
  static Map<String, String> parse(String users) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : users.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("KNOTLESS_KAFKA_USERS holds an entry without user=");
      }
      out.put(pair.substring(0, eq).strip(), pair.substring(eq + 1));
    }
    return out;
  }

  static void users(Properties p, String users) {
    Map<String, String> all = parse(users);
    String admin = all.keySet().iterator().next();
    StringBuilder jaas =
        new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required")
            .append(" username=\"")
            .append(admin)
            .append("\" password=\"")
            .append(all.get(admin))
            .append('"');
    all.forEach((u, pw) -> jaas.append(" user_").append(u).append("=\"").append(pw).append('"'));
    jaas.append(';');
    p.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas.toString());
    p.put("listener.name.controller.plain.sasl.jaas.config", jaas.toString());
    p.put("super.users", "User:" + admin);
  }

  /**
   * Grants {@code acls}: {@code <user>:<read|write>:<topic>} entries separated by {@code ;}. Write
   * is WRITE and CREATE on the topic (topics are made on first use); read is READ on the topic and
   * on every consumer group.
   */
  static void grant(int port, String users, String acls) throws Exception {
    Map<String, String> all = parse(users);
    String admin = all.keySet().iterator().next();
    Properties c = new Properties();
    c.put("bootstrap.servers", "127.0.0.1:" + port);
    c.put("security.protocol", "SASL_PLAINTEXT");
    c.put("sasl.mechanism", "PLAIN");
    c.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + admin
            + "\" password=\""
            + all.get(admin)
            + "\";");
    List<AclBinding> bindings = new ArrayList<>();
    for (String entry : acls.split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] f = entry.strip().split(":", 3);
      String principal = "User:" + f[0];
      ResourcePattern topic = new ResourcePattern(ResourceType.TOPIC, f[2], PatternType.LITERAL);
      List<AclOperation> ops =
          f[1].equals("write")
              ? List.of(AclOperation.WRITE, AclOperation.CREATE)
              : List.of(AclOperation.READ);
      for (AclOperation op : ops) {
        bindings.add(
            new AclBinding(
                topic, new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
      }
      if (f[1].equals("read")) {
        bindings.add(
            new AclBinding(
                new ResourcePattern(ResourceType.GROUP, "*", PatternType.LITERAL),
                new AccessControlEntry(
                    principal, "*", AclOperation.READ, AclPermissionType.ALLOW)));
      }
    }
    java.util.Set<String> topics = new java.util.TreeSet<>();
    for (AclBinding b : bindings) {
      if (b.pattern().resourceType() == ResourceType.TOPIC) {
        topics.add(b.pattern().name());
      }
    }
    try (Admin a = Admin.create(c)) {
      a.createAcls(bindings).all().get();
      // Made now, as an operator makes them: a reader without Describe on a topic not yet made is
      // told it is not authorized, and looks again only at its next metadata refresh (5 min).
      for (String t : topics) {
        try {
          a.createTopics(
                  List.of(
                      new org.apache.kafka.clients.admin.NewTopic(
                          t, java.util.Optional.empty(), java.util.Optional.empty())))
              .all()
              .get();
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
            throw e;
          }
        }
      }
    }
    System.out.println("granted " + bindings.size() + " ACLs, made topics " + topics);
  }
}
