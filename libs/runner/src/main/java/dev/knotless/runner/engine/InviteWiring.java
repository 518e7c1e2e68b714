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
 * {@code --discover} of private repositories in the all-in-one: the runner's invites read from the
 * appview every sweep, from where the last reading ended, each invited repository read in its space
 * and watched if its record names the runner.
 */
final class InviteWiring {
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
    if (access.privates() == null) {
      return null;
    }
    RunnerInvites invites = new RunnerInvites(XrpcClient.create(appview), access.runner());
    InviteReader reader = new InviteReader(invites::page, state, discoverer::invited);
    timers.scheduleWithFixedDelay(reader::read, 0, sweep.toMillis(), TimeUnit.MILLISECONDS);
    return reader;
  }
}
