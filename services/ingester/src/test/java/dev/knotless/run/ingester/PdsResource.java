package dev.knotless.run.ingester;

import dev.knotless.atproto.Tid;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.List;
import java.util.Map;

/**
 * Starts the reference PDS, makes an owner with two repositories to watch, and points the
 * ingester's firehose at it; tests reach the owner and the repositories through the statics.
 */
public final class PdsResource implements QuarkusTestResourceLifecycleManager {
  private static volatile PdsInstance pds;
  private static volatile Account owner;
  private static volatile List<RepoId> watched;

  static PdsInstance pds() {
    return pds;
  }

  static Account owner() {
    return owner;
  }

  /** The two watched repositories, {@code app} then {@code lib}. */
  static List<RepoId> watched() {
    return watched;
  }

  @Override
  public Map<String, String> start() {
    pds = PdsInstance.start(PdsOptions.defaults());
    owner = pds.createAccount("ingest");
    RepoId app = new RepoId(owner.did(), Tid.next());
    RepoId lib = new RepoId(owner.did(), Tid.next());
    watched = List.of(app, lib);
    return Map.of(
        "knotless.ingester.source", "firehose",
        "knotless.ingester.firehose", pds.pdsUrl().toString(),
        "knotless.ingester.repos", app + "=app," + lib + "=lib",
        "knotless.ingester.sweep", "4s",
        "knotless.ingester.pulls", "true",
        "knotless.ingester.queue", "true",
        "knotless.ingester.first-backoff", "100ms",
        "knotless.ingester.max-backoff", "1s");
  }

  @Override
  public void stop() {
    PdsInstance p = pds;
    pds = null;
    if (p != null) {
      p.close();
    }
  }
}
