package dev.knotless.runner.pass;

import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.SpaceRepos;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.SpaceRedirects;
import dev.knotless.storage.StorageCache;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The private repositories a runner watches: each read in its owner's space of its name, as the
 * runner (a member there), and polled for writes with the space's {@code listRepos} from where the
 * last poll ended, as nothing written in a space reaches Jetstream. Thread-safe.
 */
public final class PrivateWatch {
  private static final Logger LOG = LoggerFactory.getLogger(PrivateWatch.class);

  private final SpaceClient client;
  private final URI host;
  private final StorageCache cache;
  private final Clock clock;
  private final dev.knotless.runner.filing.SpaceFiling filing;
  private final Map<RepoId, SpaceRecords> spaces = new ConcurrentHashMap<>();
  private final Map<RepoId, String> cursors = new ConcurrentHashMap<>();
  private volatile Runnable onNewSpace = () -> {};
  private volatile SpaceCursors kept;

  /**
   * @param filing where each private repository read is routed as it is read, before any of its
   *     checks can be filed, so none ever goes to the runner's public account
   */
  public PrivateWatch(
      SpaceClient client,
      URI host,
      StorageCache cache,
      Clock clock,
      dev.knotless.runner.filing.SpaceFiling filing) {
    this.client = client;
    this.filing = filing;
    this.host = host;
    this.cache = cache;
    this.clock = clock;
  }

  /**
   * Reads {@code address}'s repository record in its owner's space of its name.
   *
   * @param publicMiss what reading it as a public repository said, thrown again when there is no
   *     such space either
   * @throws IOException saying the runner is not a member, when the space's host says so
   */
  Watched.Found find(String label, RepoAddress address, IOException publicMiss) throws IOException {
    SpaceRecords space;
    Snapshot snap;
    try {
      // A renamed one's records stay in the space it was made in; the space of a later name
      // redirects there.
      space = new SpaceRecords(client, SpaceRedirects.records(client, address), host);
      snap = new SnapshotReader(space, cache, clock).readRecord(address);
    } catch (XrpcException e) {
      if (SpaceErrors.notMember(e)) {
        throw new IOException(
            "it is private, and the runner ("
                + client.did()
                + ") is not a member of its space: its owner has to make it one",
            e);
      }
      if (SpaceErrors.spaceNotFound(e)) {
        throw publicMiss;
      }
      if (SpaceErrors.loginRefused(e)) {
        throw new IOException(
            "it is private, and "
                + e.serverMessage()
                + " (`knotless-run login "
                + client.did()
                + "`; a server runner: the session file in KNOTLESS_OAUTH_SESSION)",
            e);
      }
      throw e;
    }
    Watched.Found found = Watched.found(label, address, snap);
    Watched w = new Watched(found.repo().label(), found.repo().address(), found.repo().id(), true);
    filing.route(
        dev.knotless.runner.check.CheckKeys.repoPrefix(w.id().ownerDid(), w.id().repoKey()), space);
    if (spaces.put(w.id(), space) == null) {
      LOG.info("{}: private; read in the space {} as a member", label, space.space());
      onNewSpace.run();
    }
    return new Watched.Found(w, snap);
  }

  /**
   * Calls {@code r} each time a repository is first read in its space (a start's, an invite's, a
   * ring's), so that its space can be registered with the appview at once. It must not block: it
   * runs on the pass reading the repository.
   */
  public void onNewSpace(Runnable r) {
    onNewSpace = r;
  }

  /**
   * Keeps each space's poll cursor in {@code cursors} too, and asks from the one kept there: a
   * process given a repository another one polled before goes on from where that one's last
   * answered poll ended. Without it the cursors live in this process's memory alone.
   */
  public void keepCursorsIn(SpaceCursors cursors) {
    this.kept = cursors;
  }

  /** The space a private repository watched is read in, or null for one that is not. */
  public SpaceRecords space(RepoId id) {
    return spaces.get(id);
  }

  /** The private repositories watched, each with the space it is read in. */
  public Map<RepoId, SpaceId> watched() {
    Map<RepoId, SpaceId> out = new java.util.HashMap<>();
    spaces.forEach((id, s) -> out.put(id, s.space()));
    return out;
  }

  /** The client the spaces are read with, as the runner. */
  public SpaceClient client() {
    return client;
  }

  /** Stops asking the space of a repository the runner left. */
  public void forget(RepoId id) {
    spaces.remove(id);
    cursors.remove(id);
    SpaceCursors k = kept;
    if (k != null) {
      try {
        k.forget(id);
      } catch (IOException e) {
        LOG.warn("{}: its space's poll cursor could not be dropped: {}", id, e.getMessage());
      }
    }
  }

  /**
   * Asks each watched private repository's space what was written since the last ask.
   *
   * @return the repositories whose space was written to, or refused the runner (so that their
   *     passes find out why and leave them)
   */
  public List<RepoId> poll() {
    return poll(id -> true);
  }

  /** As {@link #poll()}, asking only the spaces {@code ask} says to ask now. */
  public List<RepoId> poll(java.util.function.Predicate<RepoId> ask) {
    List<RepoId> written = new ArrayList<>();
    for (Map.Entry<RepoId, SpaceRecords> e : spaces.entrySet()) {
      RepoId id = e.getKey();
      if (!ask.test(id)) {
        if (kept != null) {
          // Another process may ask it meanwhile: the next ask here reads the kept cursor.
          cursors.remove(id);
        }
        continue;
      }
      try {
        SpaceId space = e.getValue().space();
        String from = from(id, space);
        SpaceRepos page = client.listRepos(space, from);
        if (page.cursor() != null) {
          keep(id, space, page.cursor(), !page.cursor().equals(from));
        }
        // The runner's own repo there holds only its checks: its writes need no pass.
        if (page.repos().stream().anyMatch(r -> !r.did().equals(client.did()))) {
          written.add(id);
        }
      } catch (XrpcException x) {
        if (SpaceErrors.notMember(x) || SpaceErrors.spaceNotFound(x)) {
          written.add(id);
        } else {
          LOG.warn(
              "asking the space {} what was written: {}", e.getValue().space(), x.getMessage());
        }
      }
    }
    return written;
  }

  /**
   * Where to ask {@code id}'s space from: this process's own cursor while it asks the space at
   * every poll (no read of the kept one each time), else the one kept outside, where the process
   * that asked it last left it.
   */
  private String from(RepoId id, SpaceId space) {
    String own = cursors.get(id);
    SpaceCursors k = kept;
    if (own == null && k != null) {
      try {
        return k.get(id, space);
      } catch (IOException x) {
        LOG.warn(
            "{}: its space's poll cursor could not be read ({}); asking from this process's own",
            id,
            x.getMessage());
      }
    }
    return own;
  }

  /** Keeps {@code cursor} in this process, and outside it too when it {@code moved}. */
  private void keep(RepoId id, SpaceId space, String cursor, boolean moved) {
    cursors.put(id, cursor);
    SpaceCursors k = kept;
    if (moved && k != null) {
      try {
        k.put(id, space, cursor);
      } catch (IOException x) {
        // The next holder asks from an older cursor: a pass more, nothing missed.
        LOG.warn("{}: its space's poll cursor could not be kept: {}", id, x.getMessage());
      }
    }
  }
}
