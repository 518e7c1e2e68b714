package dev.knotless.run.checkwriter;

import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Starts the real reference PDS with a runner account, and the appview test server, and points the
 * check-writer at both; the PDS through a {@link CountingProxy} that counts its requests.
 */
public final class RunnerAccountResource implements QuarkusTestResourceLifecycleManager {
  /** The appview's service DID the runner asks its PDS for tokens for. */
  public static final String APPVIEW_DID = "did:web:appview.knotless.test";

  private static volatile PdsInstance pds;
  private static volatile Account runner;
  private static volatile AppviewTestServer appview;
  private static volatile CountingProxy proxy;

  /** The PDS started. */
  public static PdsInstance pds() {
    return pds;
  }

  /** The runner's account there. */
  public static Account runner() {
    return runner;
  }

  /** What the check-writer asks of the PDS: it reaches the PDS through this proxy. */
  public static CountingProxy proxy() {
    return proxy;
  }

  /** The appview test server. */
  public static AppviewTestServer appview() {
    return appview;
  }

  @Override
  public Map<String, String> start() {
    pds = PdsInstance.start(PdsOptions.defaults());
    runner = pds.createAccount("runner");
    proxy = CountingProxy.start(pds.pdsUrl());
    try {
      appview = AppviewTestServer.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of(
        "knotless.check-writer.pds", proxy.url().toString(),
        "knotless.check-writer.identifier", runner.handle(),
        "knotless.check-writer.password", runner.password(),
        "knotless.check-writer.appview", appview.url().toString(),
        "knotless.check-writer.appview-did", APPVIEW_DID);
  }

  @Override
  public void stop() {
    if (appview != null) {
      appview.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (pds != null) {
      pds.close();
    }
  }
}
