package dev.knotless.bench;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.Keys;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Part (c) of {@link StorageBench}: a repository of 590 refs read through a {@link CountingProxy}
 * adding each latency in turn, with the {@link SnapshotReader} and with a plain page loop. The two
 * ways take turns within each repetition (which goes first alternates), so a swing in the machine's
 * load falls on both. Every read is checked to return all 590 refs.
 */
final class ManyRefsRead {
  static final int REFS = 590;

  /** The latencies added per request, in milliseconds. */
  static final List<Integer> LATENCIES = List.of(0, 5, 10, 20, 50);

  private ManyRefsRead() {}

  static List<String[]> rows(PdsInstance pds, Path dir, int reps) throws Exception {
    Account owner = pds.createAccount("srefs");
    write(pds, owner, dir);
    Clock clock = Clock.systemUTC();
    List<String[]> rows = new ArrayList<>();
    for (int ms : LATENCIES) {
      try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), Duration.ofMillis(ms))) {
        XrpcClient reader = XrpcClient.create(proxy.url());
        RepoAddress at = new RepoAddress(owner.did(), owner.handle(), proxy.url(), "many-refs");
        SnapshotReader snapshots =
            new SnapshotReader(reader, StorageCache.at(dir.resolve("cache-" + ms), clock), clock);
        // The first read caches the key, so the timed ones are warm reads (one round trip first).
        String key = snapshots.read(at, SnapshotReader.Packs.NONE).repo().key();
        Timed ranges = new Timed("590 refs, +" + ms + " ms, snapshot reader");
        Timed pages = new Timed("590 refs, +" + ms + " ms, sequential pages of 100");
        for (int i = 0; i < reps; i++) {
          for (Timed t : i % 2 == 0 ? List.of(ranges, pages) : List.of(pages, ranges)) {
            t.run(
                proxy,
                t == ranges
                    ? () -> snapshots.read(at, SnapshotReader.Packs.NONE).refs().size()
                    : () -> sequentialRefs(reader, at, key));
          }
        }
        rows.add(ranges.row());
        rows.add(pages.row());
      }
    }
    return rows;
  }

  /**
   * One push through the {@link Pusher} makes the repo record and its pack; the other 589 refs
   * point at the same commit, so they are ref records alone, written in batches of 200.
   */
  private static void write(PdsInstance pds, Account owner, Path dir) throws Exception {
    Path work = dir.resolve("work");
    Files.createDirectories(work);
    StorageBench.git(work, Map.of(), "init", "-q", "-b", "main");
    Files.writeString(work.resolve("README"), "refs\n");
    StorageBench.git(work, Map.of(), "add", "-A");
    StorageBench.git(work, Map.of(), "commit", "-q", "-m", "one");
    String head = StorageBench.git(work, Map.of(), "rev-parse", "HEAD").trim();
    XrpcClient writer = XrpcClient.create(pds.pdsUrl());
    writer.login(owner.handle(), owner.password());
    Clock clock = Clock.systemUTC();
    Pusher pusher =
        new Pusher(
            writer,
            StorageCache.at(dir.resolve("cache-writer"), clock),
            clock,
            Settings.defaults().claimGrace());
    RepoAddress direct = new RepoAddress(owner.did(), owner.handle(), pds.pdsUrl(), "many-refs");
    Git local = Git.at(work.resolve(".git"));
    StorageBench.expectOk(
        pusher.push(direct, local, List.of(new RefUpdate("refs/heads/main", head, false))));
    List<RefUpdate> more = new ArrayList<>();
    for (int i = 1; i < REFS; i++) {
      more.add(new RefUpdate(String.format("refs/heads/branch-%03d", i), head, false));
    }
    StorageBench.expectOk(pusher.push(direct, local, more));
  }

  /**
   * How the client before the parallel ranges read a snapshot: the repo record beside the first
   * page, as the snapshot reads them, then page after page below the cursor.
   */
  static int sequentialRefs(XrpcClient client, RepoAddress at, String key) throws IOException {
    String did = at.did();
    CompletableFuture<Boolean> repo =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return client.findRecord(did, Lexicons.REPO, at.name()).isPresent();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    try {
      return sequentialPages(client, did, key);
    } finally {
      if (!repo.join()) {
        throw new IllegalStateException("no repo record for " + at.url());
      }
    }
  }

  private static int sequentialPages(XrpcClient client, String did, String key) throws IOException {
    int count = 0;
    String cursor = Keys.scanStart(key);
    while (true) {
      RecordPage page = client.listRecords(did, Lexicons.REF, 100, cursor, false);
      for (Record r : page.records()) {
        if (!Keys.inRange(key, r.rkey())) {
          return count;
        }
        count++;
      }
      if (page.records().size() < 100) {
        return count;
      }
      cursor = page.records().get(page.records().size() - 1).rkey();
    }
  }

  /** A read that returns how many refs it saw. */
  @FunctionalInterface
  interface RefsRead {
    int read() throws IOException;
  }

  /** One way of reading, timed over the repetitions. */
  private static final class Timed {
    private final String label;
    private final List<Long> times = new ArrayList<>();
    private int requests;
    private int roundTrips;

    Timed(String label) {
      this.label = label;
    }

    void run(CountingProxy proxy, RefsRead read) throws IOException {
      proxy.reset();
      long t0 = System.nanoTime();
      int n = read.read();
      times.add(System.nanoTime() - t0);
      if (n != REFS) {
        throw new IllegalStateException(label + " read " + n + " refs, not " + REFS);
      }
      requests = proxy.requests();
      roundTrips = proxy.roundTrips();
    }

    /** The row: median time; the request and round trip counts of the last repetition. */
    String[] row() {
      String[] r = StorageBench.row(label, times);
      r[2] = Integer.toString(requests);
      r[3] = Integer.toString(roundTrips);
      return r;
    }
  }
}
