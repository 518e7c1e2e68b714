package dev.knotless.storage;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.commit.CommitBuilder;
import dev.knotless.storage.compact.Compactor;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Random;

/** The storage API wired for one account and one PDS address (the PDS or a counting proxy). */
final class Fixture {
  final Account owner;
  final XrpcClient client;
  final StorageCache cache;
  final Clock clock;
  final Settings settings = Settings.defaults();

  Fixture(Account owner, URI pds, Path cacheDir) throws IOException {
    this(owner, pds, cacheDir, Clock.systemUTC());
  }

  Fixture(Account owner, URI pds, Path cacheDir, Clock clock) throws IOException {
    this.owner = owner;
    this.clock = clock;
    this.client = XrpcClient.create(pds);
    if (owner != null) {
      client.login(owner.handle(), owner.password());
    }
    this.cache = StorageCache.at(cacheDir, clock);
  }

  RepoAddress repo(String name) {
    return new RepoAddress(owner.did(), owner.handle(), client.service(), name);
  }

  SnapshotReader reader() {
    return new SnapshotReader(client, cache, clock);
  }

  Pusher pusher() {
    return new Pusher(client, cache, clock, settings.claimGrace());
  }

  Fetcher fetcher() {
    return new Fetcher(client, cache, clock);
  }

  Compactor compactor(Clock at) {
    return new Compactor(client, cache, at, settings);
  }

  CommitBuilder commits() {
    return new CommitBuilder(reader(), fetcher(), pusher(), cache, new Random(7), d -> {});
  }

  PushResult push(RepoAddress repo, Git local, String ref, String target) throws IOException {
    return pusher().push(repo, local, List.of(new RefUpdate(ref, target, false)));
  }

  /** A fresh bare repository, as a clone target. */
  static Git bare(Path dir) throws IOException {
    Files.createDirectories(dir);
    Git git = Git.at(dir);
    git.run(null, "init", "-q", "--bare", dir.toString());
    return git;
  }
}
