package dev.knotless.runner.engine;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.PrivateWatch;
import dev.knotless.storage.PrivateRepos;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Private repositories in the all-in-one: where their spaces are, and the poll of their writes. */
final class PrivateWiring {
  private static final Logger LOG = LoggerFactory.getLogger(PrivateWiring.class);

  private PrivateWiring() {}

  /**
   * Looks for private repositories on the host {@code KNOTLESS_SPACE_HOST} names, filing their
   * checks through {@code filer}'s spaces; null when no host is named (no released PDS keeps spaces
   * yet, so none is asked then).
   */
  static PrivateWatch begin(Map<String, String> env, PdsAccess access, CheckFiler filer) {
    String host = env.get(PrivateRepos.HOST_ENV);
    if (host == null || host.isBlank()) {
      return null;
    }
    return access.watchPrivate(URI.create(host.strip()), filer.spaces());
  }

  /**
   * Every {@code poll}, asks each private repository's space what was written, ringing its door.
   */
  static void polling(
      ScheduledExecutorService timers, Duration poll, PrivateWatch watch, Consumer<RepoId> ring) {
    if (watch == null) {
      return;
    }
    timers.scheduleWithFixedDelay(
        () -> {
          try {
            watch.poll().forEach(ring);
          } catch (RuntimeException e) {
            LOG.warn(
                "asking private repositories' spaces what was written failed: {}", e.toString());
          }
        },
        poll.toMillis(),
        poll.toMillis(),
        TimeUnit.MILLISECONDS);
  }
}
