package dev.knotless.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The table of docs/metrics.md: each name's type and the services that export it, and what a
 * service's {@code /q/metrics} must show for it.
 */
public final class MetricsTable {
  /** The file, under the project root. */
  public static final String FILE = "docs/metrics.md";

  /** The names the table must cover whole: ours. Micrometer's are listed only where read. */
  public static final String OURS = "knotless_run_";

  /** One row. */
  public record Row(String name, String type, List<String> services) {
    /** The sample names a scrape shows for it: a histogram's four, else the name itself. */
    public List<String> samples() {
      if (type.equals("histogram")) {
        return List.of(name + "_bucket", name + "_count", name + "_sum", name + "_max");
      }
      return List.of(name);
    }
  }

  private final List<Row> rows;

  private MetricsTable(List<Row> rows) {
    this.rows = List.copyOf(rows);
  }

  /** The table in {@code root}'s docs/metrics.md. */
  public static MetricsTable read(Path root) {
    List<Row> rows = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(root.resolve(FILE))) {
        if (!line.startsWith("| `")) {
          continue;
        }
        String[] cells = line.split("\\|");
        String name = cells[1].strip().replace("`", "");
        String type = cells[2].strip();
        if (!Set.of("counter", "gauge", "histogram").contains(type)) {
          throw new IllegalStateException(FILE + ": " + name + " has no type: " + type);
        }
        List<String> services =
            Arrays.stream(cells[4].split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
        rows.add(new Row(name, type, services));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (rows.isEmpty()) {
      throw new IllegalStateException(FILE + " has no table rows");
    }
    return new MetricsTable(rows);
  }

  /** Every row, in the table's order. */
  public List<Row> rows() {
    return rows;
  }

  /** Every sample name the table gives any service. */
  public Set<String> allSamples() {
    Set<String> out = new TreeSet<>();
    rows.forEach(r -> out.addAll(r.samples()));
    return out;
  }

  /** The sample names the table gives {@code service}. */
  public Set<String> samples(String service) {
    Set<String> out = new TreeSet<>();
    for (Row r : rows) {
      if (r.services().contains(service)) {
        out.addAll(r.samples());
      }
    }
    return out;
  }

  /**
   * How {@code exported} (the names one scrape of {@code service} shows) and the table disagree:
   * each of our names exported and not in the table for that service, and each the table gives it
   * and it does not export. Empty when they agree.
   */
  public List<String> disagreements(String service, Set<String> exported) {
    Set<String> wanted = samples(service);
    List<String> out = new ArrayList<>();
    for (String name : exported) {
      if (name.startsWith(OURS) && !wanted.contains(name)) {
        out.add(service + " exports " + name + ", which " + FILE + " does not give it");
      }
    }
    for (String name : wanted) {
      if (!exported.contains(name)) {
        out.add(FILE + " gives " + service + " " + name + ", which it does not export");
      }
    }
    return out;
  }
}
