package dev.knotless.testing.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The chart rendered by the embedded Helm, each document parsed by the fabric8 model. */
final class RenderedChart {
  static final String RELEASE = "ci";
  static final String NAMESPACE = "knotless";
  static final String KUBE_VERSION = "1.30.0";
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** One rendered document: Helm's text, its tree, and the typed object fabric8 made of it. */
  record Doc(String text, JsonNode tree, KubernetesResource typed) {
    String kind() {
      return tree.path("kind").asText();
    }

    String name() {
      return tree.path("metadata").path("name").asText();
    }

    String namespace() {
      return tree.path("metadata").path("namespace").asText();
    }
  }

  final String text;
  final List<Doc> docs;

  private RenderedChart(String text, List<Doc> docs) {
    this.text = text;
    this.docs = docs;
  }

  static Path chartDir() {
    String dir = System.getProperty("knotless.chart.dir");
    if (dir != null) {
      return Path.of(dir);
    }
    return Path.of("../../charts/knotless-run").toAbsolutePath().normalize();
  }

  /** Renders with the chart's defaults, then each values file in order, then each set. */
  static RenderedChart render(List<Path> valuesFiles, Map<String, Object> sets) {
    var template =
        new Helm(chartDir())
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(KUBE_VERSION);
    valuesFiles.forEach(template::withValuesFile);
    sets.forEach(template::set);
    String text = template.call();
    return new RenderedChart(text, parse(text));
  }

  /**
   * As {@link #render(List, Map)} with hooks among the documents: the embedded Helm's template
   * leaves hooks out (an install prints them apart), so this renders a copy of the chart, made in
   * {@code copy}, whose hook annotations are renamed.
   */
  static RenderedChart renderWithHooks(Path copy, Map<String, Object> sets) {
    Path chart = chartDir();
    try (var files = Files.walk(chart)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(chart.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (p.getParent().getFileName().toString().equals("templates")) {
          Files.writeString(
              target, Files.readString(p).replace("helm.sh/hook", "knotless.dev/was-hook"));
        } else {
          Files.copy(p, target);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    var template =
        new Helm(copy)
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(KUBE_VERSION);
    sets.forEach(template::set);
    String text = template.call();
    return new RenderedChart(text, parse(text));
  }

  static RenderedChart render(String... valuesResources) {
    List<Path> files = new ArrayList<>();
    for (String r : valuesResources) {
      files.add(resource(r));
    }
    return render(files, Map.of());
  }

  static Path resource(String name) {
    try {
      return Path.of(RenderedChart.class.getResource("/" + name).toURI());
    } catch (java.net.URISyntaxException | NullPointerException e) {
      throw new IllegalArgumentException("no test resource " + name, e);
    }
  }

  /** Splits a multi-document YAML stream; each non-empty document becomes a typed object. */
  static List<Doc> parse(String text) {
    List<Doc> docs = new ArrayList<>();
    try (YAMLParser parser = (YAMLParser) YAML.getFactory().createParser(text)) {
      for (JsonNode tree : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (tree == null || tree.isNull() || tree.isEmpty()) {
          continue;
        }
        KubernetesResource typed = YAML.treeToValue(tree, KubernetesResource.class);
        docs.add(new Doc(YAML.writeValueAsString(tree), tree, typed));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  static List<Doc> parseFile(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  List<Doc> ofKind(String kind) {
    return docs.stream().filter(d -> d.kind().equals(kind)).toList();
  }

  <T extends HasMetadata> List<T> typed(Class<T> type) {
    return docs.stream().map(Doc::typed).filter(type::isInstance).map(type::cast).toList();
  }

  /** Every pod template the chart renders, by its Deployment's name. */
  Map<String, PodSpec> podSpecs() {
    var specs = new java.util.TreeMap<String, PodSpec>();
    for (Deployment d : typed(Deployment.class)) {
      specs.put(d.getMetadata().getName(), d.getSpec().getTemplate().getSpec());
    }
    return specs;
  }
}
