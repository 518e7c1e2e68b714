package dev.knotless.run.reconciler.app;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * Refuses to start a reconciler still given the settings of the run mode it no longer has (docs
 * /distributed.md): an operator who set an executor, its limits or its job counts expects runs to
 * go here, and Quarkus would pass the keys over in silence. Only {@code worker.mode=queue}, which
 * the chart sets, is let through: it says what every reconciler now does.
 */
@ApplicationScoped
public class RemovedSettings {
  /** The prefix of the removed keys, in the form of property names. */
  static final String WORKER = "knotless.reconciler.worker.";

  /** The removed key {@code secrets-key-file}: the scheduler holds the runner's key now. */
  static final String SECRETS_KEY = "knotless.reconciler.secrets-key-file";

  void check(@Observes StartupEvent ev, Config config) {
    List<String> found =
        found(config.getPropertyNames(), n -> config.getOptionalValue(n, String.class));
    if (!found.isEmpty()) {
      throw new IllegalStateException(message(found));
    }
  }

  /**
   * The removed settings among {@code names} (property names or environment variables), each as
   * {@code key=value}; {@code worker.mode} set to {@code queue} is not one.
   */
  static List<String> found(Iterable<String> names, Function<String, Optional<String>> value) {
    List<String> found = new ArrayList<>();
    for (String name : names) {
      String key = normal(name);
      if (!key.startsWith(normal(WORKER)) && !key.equals(normal(SECRETS_KEY))) {
        continue;
      }
      String v = value.apply(name).orElse("");
      if (key.equals(normal(WORKER + "mode")) && v.strip().equals("queue")) {
        continue;
      }
      found.add(name + "=" + v);
    }
    return found.stream().sorted().distinct().toList();
  }

  static String message(List<String> found) {
    return "these settings are gone: reconcilers only queue runs, and the scheduler runs each as a"
        + " pod (set its jobs, owner-jobs, allowance, runtime class, image and secrets-key-file"
        + " under knotless.scheduler.*): "
        + String.join(", ", found.stream().map(f -> f.substring(0, f.indexOf('='))).toList());
  }

  /** A property name or an environment variable's, in one form: lower case, dots only. */
  private static String normal(String name) {
    String n = name.startsWith("%") ? name.substring(name.indexOf('.') + 1) : name;
    return n.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
  }
}
