package dev.knotless.storage.secrets;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.push.Pusher;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runners a repository made by a first push names: those {@code KNOTLESS_RUNNER} lists
 * (comma-separated DIDs), none with {@code KNOTLESS_NO_RUNNER=1}, and otherwise the one the appview
 * ({@code KNOTLESS_APPVIEW}) names in {@code dev.knotless.describeServer}, if any. An appview that
 * does not answer names none, with a warning: a push is not refused for it. Asked only when a push
 * makes a repository. Stateless.
 */
public final class DefaultRunner {

  private static final Logger LOG = LoggerFactory.getLogger(DefaultRunner.class);

  private DefaultRunner() {}

  /** The choice the environment makes. */
  public static Pusher.NewRepoRunners fromEnvironment(Map<String, String> env) {
    return () -> choose(env);
  }

  /**
   * The runners {@code knotless create} names: {@code named} if the owner named any ({@code
   * --runner}), none with {@code none} ({@code --no-runner}), and otherwise what a first push would
   * name ({@link #fromEnvironment}).
   *
   * @throws IOException when a named runner is not a DID, or both were asked
   */
  public static List<String> forCreate(Map<String, String> env, List<String> named, boolean none)
      throws IOException {
    if (none && !named.isEmpty()) {
      throw new IOException("--runner and --no-runner ask for opposite things; give one");
    }
    if (none) {
      return List.of();
    }
    if (!named.isEmpty()) {
      List<String> out = new ArrayList<>();
      for (String d : named) {
        if (!d.startsWith("did:")) {
          throw new IOException("--runner " + d + ": expected a runner's DID");
        }
        if (!out.contains(d)) {
          out.add(d);
        }
      }
      return out;
    }
    return choose(env);
  }

  static List<String> choose(Map<String, String> env) throws IOException {
    if ("1".equals(env.get("KNOTLESS_NO_RUNNER"))) {
      return List.of();
    }
    String named = env.get("KNOTLESS_RUNNER");
    if (named != null && !named.isBlank()) {
      List<String> out = new ArrayList<>();
      for (String d : named.split(",")) {
        if (!d.strip().startsWith("did:")) {
          throw new IOException("KNOTLESS_RUNNER " + d.strip() + ": expected a runner's DID");
        }
        out.add(d.strip());
      }
      return out;
    }
    String appview = env.get("KNOTLESS_APPVIEW");
    if (appview == null || appview.isBlank()) {
      return List.of();
    }
    try {
      String runner =
          AppviewSecrets.describe(XrpcClient.create(URI.create(appview.strip()))).defaultRunner();
      return runner == null ? List.of() : List.of(runner);
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn(
          "the appview did not say which runner new repositories name ({}); this one names none",
          e.getMessage());
      return List.of();
    }
  }
}
