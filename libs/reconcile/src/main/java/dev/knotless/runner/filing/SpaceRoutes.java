package dev.knotless.runner.filing;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.runner.check.CheckKeys;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;

/**
 * Routes for a process that files checks of repositories it never read (the distributed
 * check-writer): a run's events say the repository is private, and its checks go to the runner's
 * repo in the owner's space of the repository's name, as the reconciler that read it there would
 * file them. Without a space host nothing private can be filed, and {@link #route} refuses rather
 * than let a check fall back to the runner's public account. Thread-safe.
 */
public final class SpaceRoutes {
  private final SpaceClient client;
  private final URI host;
  private final SpaceFiling filing;

  private SpaceRoutes(SpaceClient client, URI host, SpaceFiling filing) {
    this.client = client;
    this.host = host;
    this.filing = filing;
  }

  /**
   * The routes of {@code filer}'s spaces on {@code host} (null: no space host, so no private
   * repository's check can be filed), asked as {@code runner}.
   */
  public static SpaceRoutes of(URI host, XrpcClient runner, CheckFiler filer, Clock clock) {
    SpaceClient client =
        host == null ? null : new XrpcSpaceClient(XrpcClient.create(host), runner, clock);
    return new SpaceRoutes(client, host, filer.spaces());
  }

  /**
   * Files the checks of the private repository {@code ownerDid}/{@code repoKey}, named {@code
   * name}, into its space from now on.
   *
   * @throws IOException saying why they cannot be filed anywhere: no space host is named, or the
   *     events do not name the repository
   */
  public void route(String ownerDid, String repoKey, String name) throws IOException {
    if (client == null) {
      throw new IOException(
          "the repository "
              + ownerDid
              + "/"
              + repoKey
              + " is private and no space host is named (KNOTLESS_SPACE_HOST): its check is not"
              + " filed");
    }
    if (name == null || name.isBlank()) {
      throw new IOException(
          "the private repository " + ownerDid + "/" + repoKey + " is not named: not filed");
    }
    String prefix = CheckKeys.repoPrefix(ownerDid, repoKey);
    if (filing.spaceOf(prefix + "x") == null) {
      filing.route(prefix, new SpaceRecords(client, new SpaceId(ownerDid, name), host));
    }
  }
}
