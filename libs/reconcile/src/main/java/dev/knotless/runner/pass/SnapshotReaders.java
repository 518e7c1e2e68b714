package dev.knotless.runner.pass;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.fetch.Fetcher;

/** Reads snapshots and fetches packs through one client. Thread-safe. */
public interface SnapshotReaders {
  SnapshotReader reader(XrpcClient client);

  Fetcher fetcher(XrpcClient client);
}
