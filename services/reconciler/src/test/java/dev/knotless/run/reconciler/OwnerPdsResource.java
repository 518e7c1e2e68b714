package dev.knotless.run.reconciler;

import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.OwnerRepo;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Starts the reference PDS with a runner account and an owner whose repository {@code app} holds
 * one pushed commit with a workflow that runs on pushes to main, and points the reconciler at both:
 * it logs in as the runner and watches {@code <owner did>/app}.
 */
public final class OwnerPdsResource implements QuarkusTestResourceLifecycleManager {
  /** A workflow that runs on every push to main, present from the first commit. */
  static final String CI =
      """
      on: {push: {refs: [main]}}
      secrets: [TOKEN]
      steps:
        - name: hello
          run: echo hello; echo "token=$TOKEN"
      """;

  /** The secret the secrets file grants the repository; it must never leave the worker. */
  static final String TOKEN = "s3cret-token-4242";

  private static volatile PdsInstance pds;
  private static volatile Account runner;
  private static volatile OwnerRepo owner;

  static Account runner() {
    return runner;
  }

  static OwnerRepo owner() {
    return owner;
  }

  @Override
  public Map<String, String> start() {
    pds = PdsInstance.start(PdsOptions.defaults());
    runner = pds.createAccount("runner");
    try {
      Path dir = Files.createTempDirectory("reconciler-it");
      owner = new OwnerRepo(pds.createAccount("owner"), pds.pdsUrl(), "app", dir.resolve("owner"));
      owner.commit(Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
      owner.push("main");
      Path secrets = dir.resolve("secrets.json");
      Files.writeString(
          secrets, "{\"" + owner.account.did() + "/app\": {\"TOKEN\": \"" + TOKEN + "\"}}");
      Map<String, String> config = new HashMap<>(runnerSettings(pds, runner, dir));
      config.put("knotless.reconciler.secrets-file", secrets.toString());
      config.put("knotless.reconciler.repos", owner.account.did() + "/app");
      return config;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The settings that have the reconciler read {@code pds} and file checks as {@code runner}. */
  static Map<String, String> runnerSettings(PdsInstance pds, Account runner, Path dir) {
    return Map.of(
        "knotless.reconciler.pds", pds.pdsUrl().toString(),
        "knotless.reconciler.identifier", runner.handle(),
        "knotless.reconciler.password", runner.password(),
        "knotless.reconciler.plc-url", pds.environment().get("KNOTLESS_PLC_URL"),
        "knotless.reconciler.handle-resolver", pds.environment().get("KNOTLESS_HANDLE_RESOLVER"),
        "knotless.reconciler.cache-dir", dir.resolve("runner-cache").toString());
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
