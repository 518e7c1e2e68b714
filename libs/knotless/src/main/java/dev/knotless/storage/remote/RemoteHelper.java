package dev.knotless.storage.remote;

import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.KnotlessUrl;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.storage.records.RefRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The git remote helper protocol for {@code knotless://} URLs: capabilities, option, list, fetch
 * and push, one process per git operation. Not thread-safe: git talks to it one line at a time.
 */
public final class RemoteHelper {
  private final KnotlessRepos repos;
  private final String remoteName;
  private final KnotlessUrl url;
  private final Git local;
  private final PrintStream out;
  private final PrintStream err;
  private final Consumer<PushResult> afterLandedPush;
  private RepoAddress address;
  private RecordStore reader;
  private Snapshot snapshot;
  private CompletableFuture<Void> pinning = CompletableFuture.completedFuture(null);

  /**
   * @param remoteName the remote's name, or the URL itself when git was given a bare URL
   * @param afterLandedPush given an owner's push that landed, with the pack count its pusher took
   *     (starts a due compaction)
   */
  public RemoteHelper(
      KnotlessRepos repos,
      String remoteName,
      String url,
      Git local,
      PrintStream out,
      PrintStream err,
      Consumer<PushResult> afterLandedPush) {
    this.repos = repos;
    this.remoteName = remoteName;
    this.url = KnotlessUrl.parse(url);
    this.local = local;
    this.out = out;
    this.err = err;
    this.afterLandedPush = afterLandedPush;
  }

  /** Serves git until it closes stdin or sends a blank line. */
  public void serve(BufferedReader in) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) {
        return;
      }
      if (line.equals("capabilities")) {
        out.print("option\nfetch\npush\n\n");
      } else if (line.startsWith("option ")) {
        out.print("unsupported\n");
      } else if (line.equals("list")) {
        list(local.refs().isEmpty() ? SnapshotReader.Packs.PAGE : SnapshotReader.Packs.NEWEST);
      } else if (line.equals("list for-push")) {
        list(SnapshotReader.Packs.NONE);
      } else if (line.startsWith("fetch ")) {
        fetch(batch(line, in));
      } else if (line.startsWith("push ")) {
        push(batch(line, in));
      } else {
        throw new IOException("git sent a command this helper does not know: " + line);
      }
      out.flush();
    }
  }

  private static List<String> batch(String first, BufferedReader in) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(first);
    String line;
    while ((line = in.readLine()) != null && !line.isEmpty()) {
      lines.add(line);
    }
    return lines;
  }

  private void list(SnapshotReader.Packs packs) throws IOException {
    long t = Trace.start();
    snapshot = read(packs);
    Trace.step("snapshot (" + packs.name().toLowerCase(java.util.Locale.ROOT) + " packs)", t);
    Map<String, RefRecord> live = snapshot.liveRefs();
    for (RefRecord r : live.values()) {
      out.print(r.target() + " " + r.name() + "\n");
    }
    snapshot.headRef().ifPresent(h -> out.print("@" + h + " HEAD\n"));
    out.print("\n");
  }

  private Snapshot read(SnapshotReader.Packs packs) throws IOException {
    RepoAddress at = address();
    Snapshot s;
    try {
      s = repos.snapshots(reader).read(at, packs);
    } catch (XrpcException e) {
      // A cached identity can name the PDS an account has since moved away from.
      Optional<RepoAddress> moved = repos.relocate(at, e);
      if (moved.isEmpty()) {
        throw e;
      }
      at = moved.get();
      RangeScanner.join(pinning);
      pin(at);
      address = at;
      reader = repos.reader(at);
      s = repos.snapshots(reader).read(at, packs);
    }
    if (!s.exists() && !(reader instanceof SpaceRecords)) {
      Optional<SpaceRecords> space = PrivateRepos.open(repos, at);
      if (space.isPresent()) {
        reader = space.get();
        s = repos.snapshots(reader).read(at, packs);
      } else if (packs != SnapshotReader.Packs.NONE && repos.self().isEmpty()) {
        err.println(
            "knotless: "
                + at.url()
                + " holds no public repository; if it is private, log in as one of its members"
                + " (knotless login) to read it");
      }
    }
    if (s.renamedFrom() != null) {
      String moved = s.address().url();
      err.println("knotless: " + at.url() + " has moved to " + moved);
      if (!remoteName.equals(url.toString())) {
        err.println(
            "knotless: to use the new address, run: git remote set-url "
                + remoteName
                + " "
                + moved);
      }
    }
    // Nothing read reaches git before the address is known to be the one this remote was used with.
    RangeScanner.join(pinning);
    return s;
  }

  private RepoAddress address() throws IOException {
    if (address == null) {
      long t = Trace.start();
      address = repos.locate(url);
      RepoAddress at = address;
      // Its git processes (25 to 40 ms) run beside the snapshot read, which waits for them.
      pinning =
          Threads.async(
              () -> {
                pin(at);
                return null;
              });
      reader = repos.reader(address);
      Trace.step("locate " + url.owner(), t);
    }
    return address;
  }

  /**
   * A handle can change hands: on first contact through a named remote the DID is stored, and a
   * later run whose URL resolves to another DID is refused. A bare URL is not pinned.
   */
  private void pin(RepoAddress at) throws IOException {
    if (remoteName.equals(url.toString()) || remoteName.contains("://")) {
      return;
    }
    String key = "remote." + remoteName + ".knotlessdid";
    Git.Result r = local.exec(null, List.of("config", "--get", key));
    String pinned = r.exitCode() == 0 ? r.out().strip() : "";
    if (pinned.isEmpty()) {
      local.run(null, "config", key, at.did());
    } else if (!pinned.equals(at.did())) {
      throw new IOException(
          url
              + " now resolves to "
              + at.did()
              + ", but remote '"
              + remoteName
              + "' was first used with "
              + pinned
              + " (the handle may have changed hands); if this is intended, run: git config "
              + key
              + " "
              + at.did());
    }
  }

  private void fetch(List<String> lines) throws IOException {
    if (snapshot == null) {
      snapshot = read(SnapshotReader.Packs.NEWEST);
    }
    Set<String> wanted = new LinkedHashSet<>();
    for (String l : lines) {
      String[] parts = l.split(" ");
      if (parts.length < 3) {
        throw new IOException("git sent a malformed fetch line: " + l);
      }
      wanted.add(parts[1]);
    }
    long t = Trace.start();
    repos.fetcher(reader).fetch(snapshot, local, wanted);
    Trace.step("fetch", t);
    out.print("\n");
  }

  private void push(List<String> lines) throws IOException {
    List<RefUpdate> updates = new ArrayList<>();
    List<String> bad = new ArrayList<>();
    for (String l : lines) {
      String spec = l.substring("push ".length());
      boolean force = spec.startsWith("+");
      if (force) {
        spec = spec.substring(1);
      }
      int colon = spec.lastIndexOf(':');
      String src = colon < 0 ? spec : spec.substring(0, colon);
      String dst = colon < 0 ? spec : spec.substring(colon + 1);
      try {
        String target = src.isEmpty() ? null : local.revParse(src);
        updates.add(new RefUpdate(dst, target, force));
      } catch (IllegalArgumentException e) {
        bad.add("error " + dst + " " + e.getMessage());
      }
    }
    RepoAddress at = address();
    Snapshot snap = snapshot;
    long t;
    if (snap == null || snap.address().did() == null) {
      t = Trace.start();
      snap = read(SnapshotReader.Packs.NONE);
      Trace.step("snapshot (no packs)", t);
    }
    t = Trace.start();
    // A private repository is written in its space, as the member who read it.
    RecordStore writer = reader instanceof SpaceRecords space ? space : repos.writer(at);
    Trace.step("login", t);
    RangeScanner.join(pinning);
    // The compaction's count rides beside the push's first write, so it costs no round trip.
    PushResult result;
    t = Trace.start();
    try {
      result =
          repos.pusher(writer).countingPacks(repos.compactionCount()).push(snap, local, updates);
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.AUTH
          && e.method().equals("com.atproto.server.refreshSession")) {
        throw new IOException(
            "the saved session of "
                + at.owner()
                + " was refused ("
                + e.getMessage()
                + "): run `knotless login` again, or set KNOTLESS_IDENTIFIER and KNOTLESS_PASSWORD",
            e);
      }
      throw e;
    }
    Trace.step("push", t);
    for (PushResult.Outcome o : result.outcomes()) {
      out.print(o.ok() ? "ok " + o.ref() + "\n" : "error " + o.ref() + " " + o.error() + "\n");
    }
    bad.forEach(b -> out.print(b + "\n"));
    out.print("\n");
    out.flush();
    snapshot = null;
    if (result.landed()) {
      afterLandedPush.accept(result);
    }
  }
}
