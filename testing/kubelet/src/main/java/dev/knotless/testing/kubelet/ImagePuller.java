package dev.knotless.testing.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.command.PullImageResultCallback;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AuthConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The image side of the test kubelet, as a kubelet does it: the container's {@code imagePullPolicy}
 * (defaulted as the API server defaults it) decides whether to pull; a pull is a real {@code docker
 * pull} from a registry on the loopback ({@code testing/support}'s {@code LocalRegistry}); each
 * step is recorded as the kubelet's v1 events on the pod ({@link PodEvents}), with its messages.
 * The pull secrets the pod names are read, a missing one warned of, and credentials for the image's
 * registry passed with the pull, as a kubelet does before a registry asks for any.
 */
final class ImagePuller {

  /** What became of the container's image: ready to run, or the reason the pod waits. */
  record Outcome(String waitingReason, String message, boolean retry) {
    static final Outcome READY = new Outcome(null, null, false);

    boolean ready() {
      return waitingReason == null;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DockerClient docker;
  private final KubernetesClient client;
  private final PodEvents events;

  ImagePuller(DockerClient docker, KubernetesClient client, PodEvents events) {
    this.docker = docker;
    this.client = client;
    this.events = events;
  }

  /** Makes sure pod {@code pod}'s one container's image is on the node, pulling it if need be. */
  Outcome ensure(Pod pod) {
    Container c = pod.getSpec().getContainers().get(0);
    String image = c.getImage();
    String policy = c.getImagePullPolicy() == null ? defaultPolicy(image) : c.getImagePullPolicy();
    boolean present = present(image);
    if ("Never".equals(policy)) {
      if (present) {
        events.normal(
            pod, "Pulled", "Container image \"" + image + "\" already present on machine");
        return Outcome.READY;
      }
      String message = "Container image \"" + image + "\" is not present with pull policy of Never";
      events.warning(pod, "ErrImageNeverPull", message);
      return new Outcome("ErrImageNeverPull", message, false);
    }
    if ("IfNotPresent".equals(policy) && present) {
      events.normal(pod, "Pulled", "Container image \"" + image + "\" already present on machine");
      return Outcome.READY;
    }
    AuthConfig auth = credentials(pod, registry(image));
    events.normal(pod, "Pulling", "Pulling image \"" + image + "\"");
    long start = System.nanoTime();
    String error = pull(image, auth);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (error != null) {
      events.warning(pod, "Failed", "Failed to pull image \"" + image + "\": " + error);
      events.warning(pod, "Failed", "Error: ErrImagePull");
      return new Outcome("ErrImagePull", error, true);
    }
    // The kubelet's pulls wait for no queue here (they are not serialised), so both times agree.
    String in = goDuration(took);
    events.normal(
        pod,
        "Pulled",
        "Successfully pulled image \""
            + image
            + "\" in "
            + in
            + " ("
            + in
            + " including waiting). Image size: "
            + size(image)
            + " bytes.");
    return Outcome.READY;
  }

  /** The pod waits in back-off after a failed pull: its status and events say so. */
  String backOff(Pod pod, String error) {
    String image = pod.getSpec().getContainers().get(0).getImage();
    events.normal(pod, "BackOff", "Back-off pulling image \"" + image + "\"");
    events.warning(pod, "Failed", "Error: ImagePullBackOff");
    return "Back-off pulling image \"" + image + "\": ErrImagePull: " + error;
  }

  /** The API server's default: {@code Always} for {@code :latest} or no tag, else IfNotPresent. */
  static String defaultPolicy(String image) {
    if (image.contains("@")) {
      return "IfNotPresent";
    }
    String tag = tag(image);
    return tag == null || "latest".equals(tag) ? "Always" : "IfNotPresent";
  }

  /** The registry an image reference names: its first component if it is a host, else docker.io. */
  static String registry(String image) {
    int slash = image.indexOf('/');
    if (slash < 0) {
      return "docker.io";
    }
    String first = image.substring(0, slash);
    return first.contains(".") || first.contains(":") || "localhost".equals(first)
        ? first
        : "docker.io";
  }

  /** Whether a registry host is on this machine's loopback, the only place this kubelet pulls. */
  static boolean loopback(String registry) {
    String host = registry.startsWith("[") ? registry : registry.replaceFirst(":[0-9]+$", "");
    return "localhost".equals(host)
        || host.matches("127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}")
        || host.startsWith("[::1]");
  }

  private static String tag(String image) {
    int colon = image.lastIndexOf(':');
    return colon > image.lastIndexOf('/') ? image.substring(colon + 1) : null;
  }

  private boolean present(String image) {
    try {
      docker.inspectImageCmd(image).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }

  private long size(String image) {
    InspectImageResponse r = docker.inspectImageCmd(image).exec();
    return r.getSize() == null ? 0 : r.getSize();
  }

  /** Pulls {@code image}; null when it came, else the error as the container runtime gave it. */
  private String pull(String image, AuthConfig auth) {
    String registry = registry(image);
    if (!loopback(registry)) {
      return "the test kubelet pulls only from registries on 127.0.0.1, and "
          + registry
          + " is not one";
    }
    String repository;
    String tag;
    int at = image.indexOf('@');
    if (at >= 0) {
      repository = image.substring(0, at);
      tag = image.substring(at + 1);
    } else {
      String t = tag(image);
      repository = t == null ? image : image.substring(0, image.length() - t.length() - 1);
      tag = t == null ? "latest" : t;
    }
    try {
      var pull = docker.pullImageCmd(repository).withTag(tag);
      if (auth != null) {
        pull.withAuthConfig(auth);
      }
      pull.exec(new PullImageResultCallback()).awaitCompletion();
      return present(image) ? null : "the image was not there after its pull";
    } catch (DockerException e) {
      return "Error response from daemon: " + daemonMessage(e);
    } catch (RuntimeException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "the pull was interrupted";
    }
  }

  /** The daemon's own message in a docker-java error ({@code Status 404: {"message":"..."}}). */
  private static String daemonMessage(DockerException e) {
    String m = String.valueOf(e.getMessage());
    int brace = m.indexOf('{');
    if (brace >= 0) {
      try {
        JsonNode body = JSON.readTree(m.substring(brace));
        if (body.hasNonNull("message")) {
          return body.get("message").asText().strip();
        }
      } catch (java.io.IOException notJson) {
        // The message as it is, below.
      }
    }
    return m.strip();
  }

  /**
   * Credentials for {@code registry} from the pod's pull secrets ({@code
   * kubernetes.io/dockerconfigjson}), or null when none holds any; a secret that cannot be read is
   * warned of on the pod and the pull goes on without it, as a kubelet's does.
   */
  private AuthConfig credentials(Pod pod, String registry) {
    List<LocalObjectReference> refs = pod.getSpec().getImagePullSecrets();
    if (refs == null || refs.isEmpty()) {
      return null;
    }
    List<String> missing = new ArrayList<>();
    AuthConfig found = null;
    for (LocalObjectReference ref : refs) {
      Secret s =
          client
              .secrets()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(ref.getName())
              .get();
      if (s == null || s.getData() == null || !s.getData().containsKey(".dockerconfigjson")) {
        missing.add(ref.getName());
        continue;
      }
      if (found == null) {
        found = fromDockerConfig(s.getData().get(".dockerconfigjson"), registry);
      }
    }
    if (!missing.isEmpty()) {
      events.warning(
          pod,
          "FailedToRetrieveImagePullSecret",
          "Unable to retrieve some image pull secrets ("
              + String.join(", ", missing)
              + "); attempting to pull the image may not succeed.");
    }
    return found;
  }

  private static AuthConfig fromDockerConfig(String base64, String registry) {
    try {
      JsonNode auth =
          JSON.readTree(Base64.getDecoder().decode(base64)).path("auths").path(registry);
      if (auth.isMissingNode()) {
        return null;
      }
      String user = auth.path("username").asText("");
      String password = auth.path("password").asText("");
      if (user.isEmpty() && auth.hasNonNull("auth")) {
        String both =
            new String(
                Base64.getDecoder().decode(auth.get("auth").asText()), StandardCharsets.UTF_8);
        int colon = both.indexOf(':');
        user = colon < 0 ? both : both.substring(0, colon);
        password = colon < 0 ? "" : both.substring(colon + 1);
      }
      return new AuthConfig()
          .withRegistryAddress(registry)
          .withUsername(user)
          .withPassword(password);
    } catch (java.io.IOException | IllegalArgumentException unreadable) {
      return null;
    }
  }

  /** A duration as Go's {@code time.Duration.String} prints it, as the kubelet's messages do. */
  static String goDuration(Duration d) {
    long n = d.toNanos();
    if (n == 0) {
      return "0s";
    }
    if (n < 1_000L) {
      return n + "ns";
    }
    if (n < 1_000_000L) {
      return decimal(n, 1_000L) + "µs";
    }
    if (n < 1_000_000_000L) {
      return decimal(n, 1_000_000L) + "ms";
    }
    long hours = n / 3_600_000_000_000L;
    long minutes = n / 60_000_000_000L % 60;
    String seconds = decimal(n % 60_000_000_000L, 1_000_000_000L) + "s";
    if (hours > 0) {
      return hours + "h" + minutes + "m" + seconds;
    }
    return minutes > 0 ? minutes + "m" + seconds : seconds;
  }

  private static String decimal(long n, long unit) {
    String whole = Long.toString(n / unit);
    String frac = Long.toString(unit + n % unit).substring(1).replaceFirst("0+$", "");
    return frac.isEmpty() ? whole : whole + "." + frac;
  }
}
