package dev.knotless.testing.distributed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The services' images as the chart names them by default: {@code <repository>:<appVersion>}, read
 * from {@code charts/knotless-run/values.yaml} and {@code Chart.yaml}. The build makes images by
 * these names (services/pom.xml, profile {@code images}); a test that runs them checks both agree.
 *
 * @param tag the chart's appVersion
 * @param repositories each service's repository, by its directory under {@code services/}
 */
public record ServiceImages(String tag, Map<String, String> repositories) {
  private static final Pattern APP_VERSION =
      Pattern.compile("(?m)^appVersion:\\s*\"?([^\"\\s]+)\"?\\s*$");
  private static final Pattern REPOSITORY =
      Pattern.compile("(?m)^\\s+repository:\\s*\"?(knotless-run/([a-z-]+))\"?\\s*$");

  /** Reads the chart under {@code root}. */
  public static ServiceImages of(Path root) {
    Path chart = root.resolve("charts/knotless-run");
    try {
      Matcher v = APP_VERSION.matcher(Files.readString(chart.resolve("Chart.yaml")));
      if (!v.find()) {
        throw new IllegalStateException("no appVersion in " + chart.resolve("Chart.yaml"));
      }
      Map<String, String> repos = new TreeMap<>();
      Matcher r = REPOSITORY.matcher(Files.readString(chart.resolve("values.yaml")));
      while (r.find()) {
        repos.put(r.group(2), r.group(1));
      }
      return new ServiceImages(v.group(1), Map.copyOf(repos));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The image of {@code service}, {@code knotless-run/<service>:<tag>} for one the chart does not
   * deploy (the all-in-one runner).
   */
  public String image(String service) {
    return repositories.getOrDefault(service, "knotless-run/" + service) + ":" + tag;
  }
}
