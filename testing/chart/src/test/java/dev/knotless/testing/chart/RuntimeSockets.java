package dev.knotless.testing.chart;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finds the hostPath volumes that would hand a pod the node's container runtime: a socket of
 * docker, containerd, dockershim or cri-dockerd, a directory holding one, or a directory above one
 * ({@code /run}, {@code /var}, {@code /}), since mounting a parent mounts the socket too. Whoever
 * holds such a socket can start a privileged container on the node: it is root there. Reads any
 * manifest as a tree, so a pod spec is found wherever its kind nests it (a Deployment's template, a
 * CronJob's job template, a custom resource's).
 */
final class RuntimeSockets {
  /** Socket file names, found wherever they are mounted from. */
  static final List<String> SOCKET_NAMES =
      List.of("docker.sock", "containerd.sock", "dockershim.sock", "cri-dockerd.sock");

  /** Where runtimes keep their sockets and state; a path at, under or above one is refused. */
  static final List<Path> RUNTIME_PATHS =
      List.of(
              "/var/run/docker",
              "/run/docker",
              "/var/run/containerd",
              "/run/containerd",
              "/var/run/docker.sock",
              "/run/docker.sock",
              "/var/run/dockershim.sock",
              "/run/dockershim.sock",
              "/var/run/cri-dockerd.sock",
              "/run/cri-dockerd.sock")
          .stream()
          .map(Path::of)
          .toList();

  private RuntimeSockets() {}

  /** Whether a hostPath at {@code path} exposes a container runtime's socket. */
  static boolean exposesRuntime(String path) {
    Path p = Path.of(path.replaceAll("/+", "/")).normalize();
    Path name = p.getFileName();
    if (name != null && SOCKET_NAMES.contains(name.toString())) {
      return true;
    }
    for (Path runtime : RUNTIME_PATHS) {
      if (p.startsWith(runtime) || runtime.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every hostPath in {@code doc} that exposes a runtime, as {@code <kind>/<name> <where>: <path>},
   * such as {@code DaemonSet/x spec.template.spec.volumes[0]: /var/run/docker.sock}.
   */
  static List<String> in(RenderedChart.Doc doc) {
    List<String> found = new ArrayList<>();
    walk(
        doc.tree(),
        "",
        (where, node) -> {
          JsonNode hostPath = node.get("hostPath");
          if (hostPath != null && hostPath.isObject()) {
            String path = hostPath.path("path").asText("");
            if (exposesRuntime(path)) {
              found.add(doc.kind() + "/" + doc.name() + " " + where + ": " + path);
            }
          }
        });
    return found;
  }

  /** Where {@code doc} holds a pod spec (an object with a list of containers). */
  static List<String> podSpecs(RenderedChart.Doc doc) {
    List<String> found = new ArrayList<>();
    walk(
        doc.tree(),
        "",
        (where, node) -> {
          if (node.path("containers").isArray()) {
            found.add(where);
          }
        });
    return found;
  }

  private interface Visit {
    void object(String where, JsonNode node);
  }

  private static void walk(JsonNode node, String where, Visit visit) {
    if (node.isObject()) {
      visit.object(where, node);
      for (Map.Entry<String, JsonNode> f : (Iterable<Map.Entry<String, JsonNode>>) node::fields) {
        walk(f.getValue(), where.isEmpty() ? f.getKey() : where + "." + f.getKey(), visit);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), where + "[" + i + "]", visit);
      }
    }
  }
}
