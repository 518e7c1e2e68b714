package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.discover.Discoverer;
import dev.knotless.runner.discover.InviteReader;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.invites.RunnerInvites;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code --discover} of private repositories: the runner's invites read from the appview every
 * sweep, from where the last reading ended, each invited repository read in its space and watched
 * if its record names the runner. The all-in-one reads them always; a reconciler of the distributed
 * shape only while it holds the invites' doorbell partition, so one replica at a time.
 */
public final class InviteWiring {
  private InviteWiring() {}

  /**
   * Every {@code sweep} from now, reads the runner's invites; does nothing without a space host.
   */
  static InviteReader reading(
      ScheduledExecutorService timers,
      Duration sweep,
      URI appview,
      PdsAccess access,
      StateStore state,
      Discoverer discoverer) {
    return reading(timers, sweep, appview, access, state, discoverer, () -> true);
  }

  /** As the all-in-one's, reading only while {@code mine} says this process is the one to. */
  public static InviteReader reading(
      ScheduledExecutorService timers,
      Duration sweep,
      URI appview,
      PdsAccess access,
      StateStore state,
      Discoverer discoverer,
      java.util.function.BooleanSupplier mine) {
    if (access.privates() == null) {
      return null;
    }
    RunnerInvites invites = new RunnerInvites(XrpcClient.create(appview), access.runner());
    InviteReader reader = new InviteReader(invites::page, state, discoverer::invited);
    timers.scheduleWithFixedDelay(
        () -> {
          if (mine.getAsBoolean()) {
            reader.read();
          }
        },
        0,
        sweep.toMillis(),
        TimeUnit.MILLISECONDS);
    return reader;
  }
}
