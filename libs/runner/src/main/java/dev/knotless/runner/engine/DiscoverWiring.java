package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.discover.AppviewRepos;
import dev.knotless.runner.discover.Discoverer;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.PrivateWatch;
import dev.knotless.runner.repopass.RepoPass;
import dev.knotless.runner.state.StateStore;
import java.net.URI;

/**
 * {@code --discover}: a discoverer that asks the appview for repositories naming the runner and
 * hands each it finds to a watcher, the all-in-one's or a reconciler's.
 */
public final class DiscoverWiring {
  private DiscoverWiring() {}

  /**
   * A discoverer over {@code appview} for the runner {@code runnerDid}: a private repository found
   * is judged by its record in its space, and one it passes over is no longer polled.
   *
   * @param privates the private repositories polled, or null when the runner has no space host
   */
  public static Discoverer discoverer(
      URI appview,
      PdsAccess access,
      StateStore state,
      String runnerDid,
      Discoverer.Watcher watcher,
      PrivateWatch privates) {
    Discoverer discoverer =
        new Discoverer(
            new AppviewRepos(XrpcClient.create(appview)),
            access::read,
            access::owner,
            access.identities(),
            state,
            runnerDid,
            watcher);
    discoverer.readingRecordsFrom(
        access::storeOf,
        w -> {
          if (privates != null && w.privateRepo()) {
            privates.forget(w.id());
          }
        },
        privates != null);
    return discoverer;
  }

  /**
   * The all-in-one's discoverer ({@link #discoverer}): each pass tells it of repositories it sees,
   * and repository records ring through its rule.
   */
  static Discoverer begin(
      URI appview,
      PdsAccess access,
      StateStore state,
      String runnerDid,
      Discoverer.Watcher watchList,
      RepoPass pass,
      DoorMatcher matcher,
      PrivateWatch privates) {
    Discoverer discoverer = discoverer(appview, access, state, runnerDid, watchList, privates);
    pass.discovering(discoverer::found, runnerDid);
    matcher.addRule(DoorMatcher.REPO, discoverer.repoRule());
    return discoverer;
  }
}
