package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the kernel killed a process of a container for memory: the daemon's {@code oom} events
 * for it, read back from when it started. Stateless.
 */
final class OomEvents {

  private static final Logger LOG = LoggerFactory.getLogger(OomEvents.class);

  private OomEvents() {}

  /**
   * True if the daemon reported an {@code oom} of {@code containerId} since {@code epochSecond}.
   */
  static boolean since(DockerClient docker, String containerId, long epochSecond) {
    AtomicBoolean seen = new AtomicBoolean();
    ResultCallback.Adapter<Event> events =
        new ResultCallback.Adapter<>() {
          @Override
          public void onNext(Event event) {
            seen.set(true);
          }
        };
    try {
      docker
          .eventsCmd()
          .withContainerFilter(containerId)
          .withEventFilter("oom")
          .withSince(Long.toString(epochSecond))
          .withUntil(Long.toString(Instant.now().getEpochSecond() + 1))
          .exec(events)
          .awaitCompletion(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.debug("events of container {}: {}", containerId, e.toString());
    }
    return seen.get();
  }
}
