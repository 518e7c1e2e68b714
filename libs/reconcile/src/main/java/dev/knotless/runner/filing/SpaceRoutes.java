package dev.knotless.runner.filing;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.storage.SpaceRedirects;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;

/**
 * Routes for a process that files checks of repositories it never read (the distributed
 * check-writer): a run's events say the repository is private, and its checks go to the runner's
 * repo in the space its records live in, as the reconciler that read it there would file them: the
 * owner's space of the repository's name, or, for one renamed, the space the redirect in the space
 * of its new name leads to ({@link SpaceRedirects#recordsOf}), checked by the repository's key.
 * Each repository's space is looked up once, at its first check here; a rename leaves the records
 * where they were, so the route stays right. Without a space host nothing private can be filed, and
 * {@link #route} refuses rather than let a check fall back to the runner's public account.
 * Thread-safe.
 */
public final class SpaceRoutes {
  private final SpaceClient client;
  private final URI host;
  private final SpaceFiling filing;
  private final RetryingWrites retries;

  /**
   * Routes into {@code filing}'s spaces on {@code host}, asked through {@code client}, a lookup the
   * host fails tried again at once (tests).
   */
  static SpaceRoutes over(SpaceClient client, URI host, SpaceFiling filing) {
    return new SpaceRoutes(
        client,
        host,
        filing,
        new RetryingWrites(XrpcClient.create(host), Clock.systemUTC(), d -> {}));
  }

  private SpaceRoutes(SpaceClient client, URI host, SpaceFiling filing, RetryingWrites retries) {
    this.retries = retries;
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
    return new SpaceRoutes(client, host, filer.spaces(), new RetryingWrites(runner));
  }

  /**
   * Files the checks of the private repository {@code ownerDid}/{@code repoKey}, named {@code
   * name}, into its space from now on.
   *
   * @throws IOException saying why they cannot be filed anywhere: no space host is named, the
   *     events do not name the repository, or its space could not be found (the host refused or did
   *     not answer, or no repository with its key is reached by that name)
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
      SpaceId space;
      try {
        // A host that fails for a moment is asked again as a space write would be.
        space =
            retries.retrying(
                "looking up the space of " + ownerDid + "/" + repoKey,
                () -> {
                  try {
                    return SpaceRedirects.recordsOf(client, ownerDid, name, repoKey);
                  } catch (dev.knotless.atproto.XrpcException x) {
                    throw x;
                  } catch (IOException x) {
                    throw new java.io.UncheckedIOException(x);
                  }
                });
      } catch (java.io.UncheckedIOException e) {
        throw notFound(ownerDid, repoKey, name, e.getCause());
      } catch (dev.knotless.atproto.XrpcException e) {
        if (e.retryable()) {
          throw new HostAway(
              "the space host could not say where the private repository "
                  + ownerDid
                  + "/"
                  + repoKey
                  + " lives: "
                  + e.getMessage(),
              e);
        }
        throw notFound(ownerDid, repoKey, name, e);
      } catch (IOException | IllegalArgumentException e) {
        throw notFound(ownerDid, repoKey, name, e);
      }
      filing.route(prefix, new SpaceRecords(client, space, host));
    }
  }

  /**
   * The space host did not answer, or answered a 5xx or 429, while a repository's space was looked
   * up, and still after the retries a write would get: nothing is known yet, and the caller fails
   * the event (to be read again) rather than refuse it.
   */
  public static final class HostAway extends IOException {
    HostAway(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private static IOException notFound(String ownerDid, String repoKey, String name, Exception e) {
    return new IOException(
        "the space of the private repository "
            + ownerDid
            + "/"
            + repoKey
            + " ("
            + name
            + ") could not be found: "
            + e.getMessage()
            + "; its check is not filed",
        e);
  }
}
