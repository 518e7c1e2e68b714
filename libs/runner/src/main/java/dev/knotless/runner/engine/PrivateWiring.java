package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.PrivateWatch;
import dev.knotless.runner.pass.SpaceNotices;
import dev.knotless.runner.pass.SpaceWrites;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.secrets.AppviewSecrets;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Private repositories: where their spaces are, the poll of their writes and, with an appview, the
 * word of them it passes on ({@link SpaceNotices}). The all-in-one hears of every private
 * repository it watches; a reconciler of the distributed shape only of those whose doorbell
 * partition it holds, so each space is polled by one replica.
 */
public final class PrivateWiring {
  private static final Logger LOG = LoggerFactory.getLogger(PrivateWiring.class);

  /** How often registrations are looked at; each is made again when {@code NotifyRenewals} says. */
  private static final Duration RENEW_TICK = Duration.ofMinutes(1);

  /** The first wait before the appview is awaited again after it failed (or --poll, if less). */
  private static final Duration AWAIT_AGAIN = Duration.ofSeconds(10);

  /** The longest: the wait doubles while the appview keeps failing. */
  private static final Duration AWAIT_AGAIN_MAX = Duration.ofSeconds(30);

  /** The shortest time between the starts of two awaits. */
  private static final Duration PACE = Duration.ofMillis(250);

  /** How long one service token for the appview is used. */
  private static final Duration TOKEN_REUSE = Duration.ofSeconds(30);

  private PrivateWiring() {}

  /**
   * Looks for private repositories on the host {@code KNOTLESS_SPACE_HOST} names, filing their
   * checks through {@code filer}'s spaces; null when no host is named (no released PDS keeps spaces
   * yet, so none is asked then).
   */
  public static PrivateWatch begin(Map<String, String> env, PdsAccess access, CheckFiler filer) {
    String host = env.get(PrivateRepos.HOST_ENV);
    if (host == null || host.isBlank()) {
      return null;
    }
    return access.watchPrivate(URI.create(host.strip()), filer.spaces());
  }

  /**
   * Every {@code poll}, asks each private repository's space what was written, ringing its door;
   * with an {@code appview}, also has each space tell it of writes and awaits its word of them.
   * While the appview answers, a space is asked itself once a minute, but those of {@code named}
   * (the repositories named on the command line, whose owners may have invited no runner) at every
   * poll still.
   */
  static void polling(
      ScheduledExecutorService timers,
      Duration poll,
      PrivateWatch watch,
      URI appview,
      XrpcClient runner,
      java.util.Set<RepoId> named,
      Consumer<RepoId> ring) {
    polling(
        timers,
        poll,
        watch,
        appview,
        runner,
        java.util.Set.copyOf(named)::contains,
        id -> true,
        ring);
  }

  /**
   * As {@link #polling(ScheduledExecutorService, Duration, PrivateWatch, URI, XrpcClient,
   * java.util.Set, Consumer)}, the repositories asked at every poll being those {@code named}
   * holds, and hearing only of the repositories {@code mine} holds: each space is asked, and each
   * word of a write passed on, by the one process whose repositories they are.
   */
  public static void polling(
      ScheduledExecutorService timers,
      Duration poll,
      PrivateWatch watch,
      URI appview,
      XrpcClient runner,
      java.util.function.Predicate<RepoId> named,
      java.util.function.Predicate<RepoId> mine,
      Consumer<RepoId> ring) {
    if (watch == null) {
      return;
    }
    SpaceNotices notices = appview == null ? null : notices(watch, appview, runner);
    if (notices != null) {
      notices.namedOnly(named);
    }
    timers.scheduleWithFixedDelay(
        () -> {
          try {
            watch
                .poll(id -> mine.test(id) && (notices == null || notices.askNow(id)))
                .forEach(ring);
          } catch (RuntimeException e) {
            LOG.warn(
                "asking private repositories' spaces what was written failed: {}", e.toString());
          }
        },
        poll.toMillis(),
        poll.toMillis(),
        TimeUnit.MILLISECONDS);
    if (notices == null) {
      return;
    }
    timers.scheduleWithFixedDelay(renewing(notices), 0, RENEW_TICK.toSeconds(), TimeUnit.SECONDS);
    Duration again = poll.compareTo(AWAIT_AGAIN) < 0 ? poll : AWAIT_AGAIN;
    // A space found after the start (by an invite, or a ring) is registered at once, not at the
    // next minute's look, and the appview is awaited at once if nothing was watched before: the
    // first push after it is heard through the appview.
    java.util.concurrent.Semaphore found = new java.util.concurrent.Semaphore(0);
    watch.onNewSpace(
        () -> {
          found.release();
          try {
            timers.execute(renewing(notices));
          } catch (java.util.concurrent.RejectedExecutionException stopping) {
            // The runner is stopping.
          }
        });
    Thread t =
        new Thread(
            () -> {
              long backoff = again.toMillis();
              while (!timers.isShutdown()) {
                long began = System.nanoTime();
                try {
                  if (watch.watched().isEmpty()) {
                    // No private repository (yet, or any more): nothing to hear of till one is
                    // found.
                    if (found.tryAcquire(again.toMillis(), TimeUnit.MILLISECONDS)) {
                      found.drainPermits();
                    }
                    continue;
                  }
                  notices.awaitOnce().stream().filter(mine).forEach(ring);
                  backoff = again.toMillis();
                  // An appview that answers at once every time is not asked more than four
                  // times a second.
                  long left = PACE.toNanos() - (System.nanoTime() - began);
                  if (left > 0) {
                    Thread.sleep(left / 1_000_000);
                  }
                } catch (InterruptedException x) {
                  return;
                } catch (IOException | RuntimeException e) {
                  // Logged by the notices when the appview stops answering; wait, longer each
                  // time, then try again.
                  try {
                    Thread.sleep(backoff);
                    backoff = Math.min(backoff * 2, AWAIT_AGAIN_MAX.toMillis());
                  } catch (InterruptedException x) {
                    return;
                  }
                }
              }
            },
            "knotless-space-writes");
    t.setDaemon(true);
    t.start();
  }

  private static Runnable renewing(SpaceNotices notices) {
    return () -> {
      try {
        notices.renew();
      } catch (RuntimeException e) {
        LOG.warn("renewing private repositories' registrations failed: {}", e.toString());
      }
    };
  }

  private static SpaceNotices notices(PrivateWatch watch, URI appview, XrpcClient runner) {
    XrpcClient client = XrpcClient.create(appview);
    String[] did = {null};
    java.util.function.Supplier<String> appviewDid =
        () -> {
          synchronized (did) {
            if (did[0] == null) {
              try {
                did[0] = AppviewSecrets.describe(client).did();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }
            return did[0];
          }
        };
    // A service token lasts a minute: one serves the awaits of half of it.
    Object[] token = {null, 0L};
    SpaceWrites.Tokens tokens =
        () -> {
          synchronized (token) {
            if (token[0] == null || System.nanoTime() - (long) token[1] > TOKEN_REUSE.toNanos()) {
              token[0] = runner.serviceToken(appviewDid.get(), SpaceWrites.AWAIT);
              token[1] = System.nanoTime();
            }
            return (String) token[0];
          }
        };
    SpaceWrites writes = new SpaceWrites(client, tokens);
    return new SpaceNotices(watch, writes, appviewDid, Clock.systemUTC());
  }
}
