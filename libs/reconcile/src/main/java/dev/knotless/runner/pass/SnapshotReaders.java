package dev.knotless.runner.pass;

import dev.knotless.atproto.RecordStore;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.fetch.Fetcher;

/** Reads snapshots and fetches packs through one client. Thread-safe. */
public interface SnapshotReaders {
  SnapshotReader reader(RecordStore client);

  Fetcher fetcher(RecordStore client);
}
