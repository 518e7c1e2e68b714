package dev.knotless.runner.pass;

import dev.knotless.atproto.Printable;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.doorbell.RepoId;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hearing of writes in private repositories' spaces through the appview, as runner.md's "Private
 * repositories" says: each watched space's authority is asked ({@code registerNotify}, renewed by
 * {@link NotifyRenewals}) to tell the appview's {@code #knotless_appview} service of its writes,
 * and the appview is awaited ({@link SpaceWrites}) for them. A write passed on rings its
 * repository's door; a reply saying writes may have been missed rings every one. While the appview
 * answers, a registered space is asked itself ({@code listRepos}) once a minute; otherwise at every
 * poll, as before. Thread-safe.
 */
public final class SpaceNotices {
  private static final Logger LOG = LoggerFactory.getLogger(SpaceNotices.class);

  /** The service id the appview's DID document names. */
  public static final String SERVICE = "#knotless_appview";

  /** How often a space is asked itself while the appview passes on its writes. */
  public static final Duration ASKED_ALONE = Duration.ofMinutes(1);

  private static final int MAX_WARNED = 100;

  private final Supplier<Map<RepoId, SpaceId>> watched;
  private final SpaceClient client;
  private final SpaceWriteSource writes;
  private final Supplier<String> appviewDid;
  private final Clock clock;
  private final NotifyRenewals renewals = new NotifyRenewals();
  private final Map<RepoId, Instant> asked = new ConcurrentHashMap<>();
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private volatile java.util.function.Predicate<RepoId> named = id -> false;
  private volatile Boolean answering;
  private volatile String cursor;

  /** As {@link #SpaceNotices(Supplier, SpaceClient, SpaceWriteSource, Supplier, Clock)}. */
  public SpaceNotices(
      PrivateWatch watch, SpaceWriteSource writes, Supplier<String> appviewDid, Clock clock) {
    this(watch::watched, watch.client(), writes, appviewDid, clock);
  }

  /**
   * @param watched the private repositories watched now, each with its space
   * @param client the runner's client of the spaces
   * @param appviewDid the appview's DID, as its describeServer says (asked when first needed)
   */
  public SpaceNotices(
      Supplier<Map<RepoId, SpaceId>> watched,
      SpaceClient client,
      SpaceWriteSource writes,
      Supplier<String> appviewDid,
      Clock clock) {
    this.watched = watched;
    this.client = client;
    this.writes = writes;
    this.appviewDid = appviewDid;
    this.clock = clock;
  }

  /**
   * Asks the authority of each space whose registration is due to tell the appview of writes: a
   * space newly watched is due at once. One at a time, so a renewal a new space brings on and the
   * minute's look never ask for the same space twice.
   */
  public synchronized void renew() {
    Map<RepoId, SpaceId> spaces = watched.get();
    asked.keySet().retainAll(spaces.keySet());
    Instant now = clock.instant();
    for (SpaceId space : renewals.due(Set.copyOf(spaces.values()), now)) {
      try {
        String service = appviewDid.get() + SERVICE;
        Instant until = client.registerNotify(space, service);
        boolean before = renewals.registered(space, now);
        renewals.registered(space, now, until);
        if (!before) {
          LOG.info("the space {} tells {} of its writes till {}", space, service, until);
        }
      } catch (IOException | RuntimeException e) {
        renewals.failed(space, now);
        LOG.warn(
            "asking the space {} to tell the appview of its writes failed: {}; asking again in {}",
            space,
            e.getMessage(),
            NotifyRenewals.RETRY);
      }
    }
  }

  /**
   * Waits for the appview's next word of writes.
   *
   * @return the repositories whose doors to ring
   * @throws IOException when the appview does not answer or its reply is refused: the caller waits
   *     a while, and every space is asked at each poll meanwhile
   */
  public List<RepoId> awaitOnce() throws IOException {
    SpaceWrites.Reply r;
    try {
      r = writes.await(cursor);
    } catch (IOException | RuntimeException e) {
      if (!Boolean.FALSE.equals(answering)) {
        LOG.warn(
            "awaiting private repositories' writes through the appview failed: {}; asking each"
                + " space every --poll seconds till it answers",
            e.getMessage());
      }
      answering = false;
      throw e instanceof IOException io ? io : new IOException(e.toString(), e);
    }
    if (!Boolean.TRUE.equals(answering)) {
      LOG.info(
          "the appview passes on writes in private repositories' spaces; each space registered is"
              + " asked itself once a minute");
    }
    answering = true;
    Map<RepoId, SpaceId> spaces = watched.get();
    Set<RepoId> ring = new LinkedHashSet<>();
    if (r.missed()) {
      ring.addAll(spaces.keySet());
    }
    String self = client.did();
    for (SpaceWrites.Write w : r.writes()) {
      RepoId id = repoOf(spaces, w.space());
      if (id == null) {
        if (warned.size() < MAX_WARNED && warned.add(w.space().toString())) {
          LOG.warn(
              "the appview passed on a write in {}, a space this runner watches no repository"
                  + " in; ignored",
              Printable.escape(w.space().toString()));
        }
      } else if (!w.repo().equals(self)) {
        // The runner's own repo there holds only its checks: its writes need no pass.
        ring.add(id);
      }
    }
    cursor = r.cursor();
    return new ArrayList<>(ring);
  }

  /**
   * Has the poll ask the spaces of {@code ids}, the private repositories named on the runner's
   * command line, at every poll: their owners may have invited no runner, and the appview passes a
   * space's writes only to runners its owner invited (runner.md).
   */
  public void namedOnly(Set<RepoId> ids) {
    namedOnly(Set.copyOf(ids)::contains);
  }

  /** As {@link #namedOnly(Set)}, for the repositories {@code which} holds, asked at each poll. */
  public void namedOnly(java.util.function.Predicate<RepoId> which) {
    named = which;
  }

  /** Whether the poll now asks {@code id}'s space itself; if so, it counts as asked now. */
  public boolean askNow(RepoId id) {
    Instant now = clock.instant();
    SpaceId space = watched.get().get(id);
    if (space != null
        && !named.test(id)
        && Boolean.TRUE.equals(answering)
        && renewals.registered(space, now)) {
      Instant last = asked.get(id);
      if (last != null && now.isBefore(last.plus(ASKED_ALONE))) {
        return false;
      }
    }
    asked.put(id, now);
    return true;
  }

  private static RepoId repoOf(Map<RepoId, SpaceId> spaces, SpaceId space) {
    for (Map.Entry<RepoId, SpaceId> e : spaces.entrySet()) {
      if (e.getValue().equals(space)) {
        return e.getKey();
      }
    }
    return null;
  }
}
