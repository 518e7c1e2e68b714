package dev.knotless.testing.distributed;

import dev.knotless.testing.MetricsTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What each service must export, from the table of {@code docs/metrics.md} (the list the chart's
 * dashboard and alerts are checked against), and whether running services do.
 */
public final class ExportedMetrics {
  /** The file, under the project root. */
  public static final String FILE = MetricsTable.FILE;

  /** Services listed in the table that the distributed shape does not start. */
  public static final Set<String> NOT_RUN = Set.of("all-in-one", "all-in-one with caches");

  private ExportedMetrics() {}

  /** Service to the sample names it must export, from the table. */
  public static Map<String, Set<String>> wanted(Path root) {
    MetricsTable table = MetricsTable.read(root);
    Map<String, Set<String>> wanted = new LinkedHashMap<>();
    for (MetricsTable.Row row : table.rows()) {
      for (String service : row.services()) {
        wanted.computeIfAbsent(service, k -> new TreeSet<>()).addAll(row.samples());
      }
    }
    return wanted;
  }

  /** The metric names in a Prometheus text exposition, without labels or values. */
  public static Set<String> names(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = line.length();
      for (char c : new char[] {'{', ' '}) {
        int i = line.indexOf(c);
        if (i >= 0 && i < end) {
          end = i;
        }
      }
      names.add(line.substring(0, end));
    }
    return names;
  }

  /**
   * What each running service, by its directory name, does not export of what it must, and the
   * services the file lists that are neither running nor in {@link #NOT_RUN}: empty when all is
   * well.
   */
  public static List<String> missing(Path root, Map<String, ServiceProcess> running)
      throws IOException {
    return missing(root, running, NOT_RUN);
  }

  /**
   * As {@link #missing(Path, Map)}, with {@code notRun} the services the caller does not start
   * (empty for a test that runs every service, as SchedulerIT does).
   */
  public static List<String> missing(
      Path root, Map<String, ServiceProcess> running, Set<String> notRun) throws IOException {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Set<String>> e : wanted(root).entrySet()) {
      ServiceProcess s = running.get(e.getKey());
      if (s == null) {
        if (!notRun.contains(e.getKey())) {
          problems.add(e.getKey() + " is listed in " + FILE + " but was not running");
        }
        continue;
      }
      Set<String> exported = names(s.metrics());
      for (String name : e.getValue()) {
        if (!exported.contains(name)) {
          problems.add(e.getKey() + " does not export " + name);
        }
      }
    }
    return Collections.unmodifiableList(problems);
  }
}
