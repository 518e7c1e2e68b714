package dev.knotless.runner.discover;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.reconcile.NamesRunner;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --discover}: finds repositories whose record names the runner and hands them to be
 * watched. Those found before come from the state ({@code discovered}, as {@code <owner did>/<repo
 * key>}) at the start, before the appview is asked; then the appview's {@code listRepos} is asked
 * at the start and every sweep. Whatever the appview says, each is read from its owner's PDS and
 * watched only if its record names the runner and it is not archived. Labelled {@code <owner
 * did>/<name>}. Thread-safe: sweeps run one at a time.
 */
public final class Discoverer {

  private static final Logger LOG = LoggerFactory.getLogger(Discoverer.class);
  private static final String REPO = "dev.knotless.repo";

  /** Where found repositories go: the runner's watch list. */
  public interface Watcher {
    /** True if the repository is watched already. */
    boolean watching(RepoId id);

    /** Watches a repository found naming the runner. */
    void watch(Watched repo);

    /**
     * Watches a repository already watched by its key under the name it has now (renamed), in place
     * of how it was watched before.
     */
    void rewatch(Watched repo);
  }

  /** Reads a repository by its label, {@code <owner did>/<name>}, from its owner's PDS. */
  @FunctionalInterface
  public interface Reader {
    Watched read(String label) throws IOException;
  }

  private final AppviewRepos appview;
  private final Reader reader;
  private final java.util.function.Function<java.net.URI, XrpcClient> owners;
  private final IdentityResolver identities;
  private final StateStore state;
  private final String runnerDid;
  private final Watcher watcher;
  // Labels already said to be passed over: a lying appview is logged once, not every sweep.
  private final java.util.Set<String> passedOver = new java.util.HashSet<>();
  private final java.util.Set<String> found = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // Where a repository read is judged from: its owner's PDS, or its space for a private one.
  private volatile java.util.function.Function<Watched, dev.knotless.atproto.RecordStore> stores;
  // Told of each repository read and then passed over, so what reading it set up is undone.
  private volatile java.util.function.Consumer<Watched> letGo = w -> {};
  // Whether private repositories can be read (a space host is named).
  private volatile boolean readsSpaces;

  public Discoverer(
      AppviewRepos appview,
      Reader reader,
      java.util.function.Function<java.net.URI, XrpcClient> owners,
      IdentityResolver identities,
      StateStore state,
      String runnerDid,
      Watcher watcher) {
    this.appview = appview;
    this.reader = reader;
    this.owners = owners;
    this.identities = identities;
    this.state = state;
    this.runnerDid = runnerDid;
    this.watcher = watcher;
    this.stores = w -> owners.apply(w.address().pds());
    state.runner().discovered().forEach(e -> found.add(PrivateEntries.key(e)));
  }

  /**
   * Judges each repository read by its record where {@code stores} says it is kept (a private one's
   * space), rather than its owner's PDS, and tells {@code letGo} of each read and passed over (a
   * private one's space is then asked no more). Without {@code readsSpaces} (no space host), the
   * private repositories the state lists are kept for a start that can read them.
   */
  public void readingRecordsFrom(
      java.util.function.Function<Watched, dev.knotless.atproto.RecordStore> stores,
      java.util.function.Consumer<Watched> letGo,
      boolean readsSpaces) {
    this.stores = stores;
    this.letGo = letGo;
    this.readsSpaces = readsSpaces;
  }

  /**
   * Looks at a private repository the runner was invited to: watched if it can be read, as a
   * member, and its record names the runner, as any repository found.
   *
   * @return false when it could not be read for a moment (a host that did not answer), to be looked
   *     at again; true when it is watched or passed over for good
   */
  public synchronized boolean invited(dev.knotless.storage.invites.RunnerInvites.Invite invite) {
    String label = invite.label();
    try {
      consider(label, "invited by " + invite.by());
      return true;
    } catch (IOException | RuntimeException e) {
      if (PrivateEntries.momentary(e)) {
        LOG.warn("{}: invited, cannot be read now: {}", label, e.getMessage());
        return false;
      }
      LOG.info("{}: invited by {}, but {}; passed over", label, invite.by(), e.getMessage());
      return true;
    }
  }

  /**
   * True if the repository was found naming the runner (it is in the state's list). Asked on every
   * pass, so answered from memory, kept in step with the state by this class's writes.
   */
  public boolean found(RepoId id) {
    return found.contains(id.ownerDid() + "/" + id.repoKey());
  }

  /**
   * Watches again what was found before, as the state lists it, without asking the appview. One
   * that cannot be read now stays listed, to be tried at the next sweep.
   */
  public synchronized void fromState() {
    for (String entry : state.runner().discovered()) {
      String key = PrivateEntries.key(entry);
      int slash = key.indexOf('/');
      RepoId id = new RepoId(key.substring(0, slash), key.substring(slash + 1));
      if (watcher.watching(id)) {
        continue;
      }
      String privateName = PrivateEntries.name(entry);
      if (privateName != null) {
        if (readsSpaces) {
          fromState(id, privateName);
        } else if (passedOver.add(entry)) {
          LOG.warn("{}: found before, private, and no space host is named; not watched", entry);
        }
        continue;
      }
      try {
        Optional<String> name = nameOf(id);
        if (name.isEmpty()) {
          LOG.info("{}: found before, now gone from its owner's account; left", entry);
          forget(id);
          continue;
        }
        consider(id.ownerDid() + "/" + name.get(), "found before");
      } catch (IOException e) {
        LOG.warn("{}: found before, cannot be read now: {}", entry, e.getMessage());
      }
    }
  }

  /** A private repository found before, read again in its space by the name it was found by. */
  private void fromState(RepoId id, String name) {
    String label = id.ownerDid() + "/" + name;
    try {
      if (!consider(label, "found before")) {
        // Its space is asked no more: nothing would find it again but an invite.
        forget(id);
      }
    } catch (IOException | RuntimeException e) {
      if (PrivateEntries.momentary(e)) {
        LOG.warn("{}: found before, cannot be read now: {}", label, e.getMessage());
      } else {
        LOG.info("{}: found before, {}; left", label, e.getMessage());
        forget(id);
      }
    }
  }

  /**
   * Asks the appview and watches what it lists that names the runner. An appview that does not
   * answer is logged; what is watched stays watched.
   */
  public synchronized void sweep() {
    List<AppviewRepos.Listed> listed;
    try {
      listed = appview.list(runnerDid);
    } catch (IOException | RuntimeException e) {
      LOG.warn("the appview's list of repositories naming this runner: {}", e.getMessage());
      fromState();
      return;
    }
    fromState();
    for (AppviewRepos.Listed l : listed) {
      try {
        consider(l.did() + "/" + l.name(), "listed by the appview");
      } catch (IOException e) {
        LOG.warn(
            "{}/{}: listed by the appview, cannot be read: {}", l.did(), l.name(), e.getMessage());
      }
    }
  }

  // Reads a frame asks for, one at a time; past 64 waiting, a flood's frames are dropped (the next
  // sweep still finds what they named).
  private final java.util.concurrent.ThreadPoolExecutor frames =
      new java.util.concurrent.ThreadPoolExecutor(
          1,
          1,
          0,
          java.util.concurrent.TimeUnit.SECONDS,
          new java.util.concurrent.ArrayBlockingQueue<>(64),
          r -> {
            Thread t = new Thread(r, "knotless-discover-frames");
            t.setDaemon(true);
            return t;
          },
          new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());

  /**
   * A doorbell rule for repository records: rings the doors of watched repositories by name, as the
   * default rule does, and for a record written of one not watched, reads that repository soon, off
   * the source's thread, to watch it if it names the runner. The frame only says where to look.
   */
  public dev.knotless.runner.doorbell.DoorRule repoRule() {
    return (change, watched) -> {
      java.util.Set<RepoId> doors = new java.util.LinkedHashSet<>();
      for (dev.knotless.runner.doorbell.WatchedRepo r : watched.ofOwner(change.did())) {
        if (r.name().equals(change.rkey())) {
          doors.add(r.id());
        }
      }
      if (doors.isEmpty()
          && change.operation() != dev.knotless.runner.doorbell.RecordChange.Operation.DELETE
          && change.did().startsWith("did:")
          && !change.rkey().isEmpty()
          && change.rkey().indexOf('/') < 0) {
        String label = change.did() + "/" + change.rkey();
        frames.execute(() -> frame(label));
      }
      return doors;
    };
  }

  /**
   * The distributed shape's rule for repository records, where the process that sees frames (the
   * ingester) is not the one that reads repositories: rings the doors of watched repositories by
   * name, as the default rule does, and for a record written of one not watched hands {@code
   * unwatched} a door keyed {@code <owner did>/<name>}, to ring on the topic, which a reconciler
   * with discovery takes to {@link #lookFor}. A name that cannot be a door's key (it holds a dot)
   * is left to the next sweep.
   */
  public static dev.knotless.runner.doorbell.DoorRule ringUnwatched(
      java.util.function.Consumer<RepoId> unwatched) {
    return (change, watched) -> {
      java.util.Set<RepoId> doors = new java.util.LinkedHashSet<>();
      for (dev.knotless.runner.doorbell.WatchedRepo r : watched.ofOwner(change.did())) {
        if (r.name().equals(change.rkey())) {
          doors.add(r.id());
        }
      }
      if (doors.isEmpty()
          && change.operation() != dev.knotless.runner.doorbell.RecordChange.Operation.DELETE) {
        try {
          unwatched.accept(new RepoId(change.did(), change.rkey()));
        } catch (IllegalArgumentException e) {
          LOG.debug("{}/{}: not a door's key; left to the next sweep", change.did(), change.rkey());
        }
      }
      return doors;
    };
  }

  private synchronized void frame(String label) {
    try {
      consider(label, "written on the event stream");
    } catch (IOException | RuntimeException e) {
      LOG.debug(
          "{}: written on the event stream, cannot be read: {}",
          dev.knotless.atproto.Printable.escape(label),
          e.getMessage());
    }
  }

  /**
   * Looks, soon and off the caller's thread, for the owner's repository a doorbell for {@code id}
   * names, by key or by name, and watches it if its record names the runner: how the distributed
   * shape's reconciler hears of one the ingester saw written on the event stream. Past 64 waiting,
   * a flood's are dropped (the next sweep still finds what they named).
   */
  public void lookFor(RepoId id) {
    frames.execute(() -> look(id));
  }

  private synchronized void look(RepoId id) {
    try {
      Optional<String> name = nameOf(id, true);
      if (name.isPresent()) {
        consider(id.ownerDid() + "/" + name.get(), "rung for");
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("{}: rung for, cannot be read: {}", id, e.getMessage());
    }
  }

  /**
   * A found repository a pass saw renamed ({@code RepoPass.Outcome.RENAMED}): finds it again by its
   * key under its new name and has the watcher watch it as {@code <owner did>/<new name>}, if its
   * record still names the runner.
   *
   * @return false when no repository of the owner's holds its key now, or it no longer names the
   *     runner: the caller stops watching it
   * @throws IOException when the owner's account cannot be read now (it stays as it was)
   */
  public synchronized boolean refind(Watched old) throws IOException {
    Optional<String> name = nameOf(old.id());
    if (name.isEmpty()) {
      return false;
    }
    String label = old.id().ownerDid() + "/" + name.get();
    Watched w = reader.read(label);
    if (!w.id().equals(old.id())) {
      throw new IOException(label + " names repository " + w.id() + " now; renamed again?");
    }
    XrpcClient owner = owners.apply(w.address().pds());
    Optional<Record> record = owner.findRecord(w.id().ownerDid(), REPO, w.address().name());
    NamesRunner names = NamesRunner.judge(runnerDid, record.map(Record::value).orElse(null));
    if (names != NamesRunner.YES) {
      LOG.info(
          "{}: renamed to {}, but {}; no longer watching it", old.label(), name.get(), names.why());
      return false;
    }
    LOG.info(
        "{}: renamed to {}; found again by its key {} and watched as {}",
        old.label(),
        name.get(),
        old.id().repoKey(),
        label);
    watcher.rewatch(w);
    return true;
  }

  /** Stops reading what frames ask for. */
  public void close() {
    frames.shutdownNow();
  }

  /** Drops a repository the runner left from the state's list. */
  public void forget(RepoId id) {
    String entry = id.ownerDid() + "/" + id.repoKey();
    found.remove(entry);
    state.updateRunner(
        r ->
            r.withDiscovered(
                r.discovered().stream()
                    .filter(e -> !PrivateEntries.key(e).equals(entry))
                    .toList()));
  }

  /** Watches the repository if it names the runner; false when it was passed over. */
  private boolean consider(String label, String how) throws IOException {
    Watched w;
    try {
      w = reader.read(label);
    } catch (IllegalArgumentException e) {
      // A name or DID that is no name: an error of this one repository, not of the sweep.
      throw new IOException(e.getMessage(), e);
    }
    if (watcher.watching(w.id())) {
      return true;
    }
    Optional<Record> record =
        stores.apply(w).findRecord(w.id().ownerDid(), REPO, w.address().name());
    NamesRunner names = NamesRunner.judge(runnerDid, record.map(Record::value).orElse(null));
    if (names != NamesRunner.YES) {
      if (passedOver.add(label)) {
        LOG.info("{}: {}, but {}; passed over", label, how, names.why());
      } else {
        LOG.debug("{}: {}, but {}; passed over", label, how, names.why());
      }
      letGo.accept(w);
      return false;
    }
    passedOver.remove(label);
    String entry = PrivateEntries.entry(w);
    state.updateRunner(
        r -> {
          if (r.discovered().contains(entry)) {
            return r;
          }
          List<String> next = new ArrayList<>(r.discovered());
          next.add(entry);
          return r.withDiscovered(next);
        });
    found.add(w.stateKey());
    LOG.info("{}: {}, names this runner; watching it as {}", label, how, w.stateKey());
    watcher.watch(w);
    return true;
  }

  /** The name of the owner's repository with this key, from the records in their account. */
  private Optional<String> nameOf(RepoId id) throws IOException {
    return nameOf(id, false);
  }

  /** As above; {@code lookingByName} also takes a record whose name is {@code id}'s key. */
  private Optional<String> nameOf(RepoId id, boolean lookingByName) throws IOException {
    return RepoNames.nameOf(
        owners.apply(identities.resolve(id.ownerDid()).pds()), id, lookingByName);
  }
}
