package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.ConsentBrowser;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runner logged in once with {@code knotless-run login} (a real chromium on the PDS's own pages)
 * and then left alone: with access tokens of {@value #TOKEN_SECONDS} s, it writes across several
 * lifetimes, refreshing ahead of each end, without one refused request. A server runner given the
 * same session through a mounted file starts from it in an empty config directory.
 */
class RunnerOAuthIT {
  static final int TOKEN_SECONDS = 6;

  @Test
  void aRunnerLoggedInOnceRunsUnattendedAcrossTokenLifetimes(@TempDir Path tmp) throws Exception {
    try (PdsInstance pds =
            PdsInstance.start(
                PdsOptions.defaults(),
                Map.of("PROBE_OAUTH_TOKEN_SECONDS", Integer.toString(TOKEN_SECONDS)));
        ConsentBrowser browser = ConsentBrowser.start()) {
      Account runner = pds.createAccount("orunner");
      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cache").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("config").toString());
      env.put("HOME", tmp.toString());

      // knotless-run login, the person's part done in the browser.
      ConsentBrowser.AddressWatch err = new ConsentBrowser.AddressWatch();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ExecutorService pool = Executors.newSingleThreadExecutor();
      Future<Integer> exit =
          pool.submit(
              () ->
                  RunnerSessions.command(
                      RunnerSessions.LOGIN,
                      List.of(runner.handle()),
                      env,
                      new PrintStream(out, true, StandardCharsets.UTF_8),
                      new PrintStream(err, true, StandardCharsets.UTF_8)));
      browser.consent(err.await(Duration.ofSeconds(60)), runner.password(), "http://127.0.0.1:");
      assertEquals(0, exit.get().intValue(), out + err.text());
      pool.shutdown();
      Path file = tmp.resolve("config/sessions.json");
      JsonNode first = Json.read(Files.readAllBytes(file)).path(runner.did());

      // A server runner: the session as a Secret mounts it, and an empty config directory.
      Path secret = tmp.resolve("secret/session.json");
      Files.createDirectories(secret.getParent());
      Files.write(secret, Json.write(first));
      Map<String, String> server = new HashMap<>(env);
      server.put("KNOTLESS_CONFIG_DIR", tmp.resolve("server-config").toString());
      server.put(RunnerSessions.SEED, secret.toString());
      PdsAccess seeded = PdsAccess.login(server, Clock.systemUTC());
      assertEquals(runner.did(), seeded.runner().did());
      assertEquals("OAuth session", seeded.runner().loginKind());
      seeded
          .runner()
          .putRecord(runner.did(), "dev.knotless.check", "seeded", check(0), Swap.none());
      Path seededFile = tmp.resolve("server-config/sessions.json");
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(seededFile)));

      // The runner itself: no password, the saved session; every call observed.
      List<Integer> statuses = new CopyOnWriteArrayList<>();
      PdsAccess access = PdsAccess.login(env, Clock.systemUTC(), (m, s, n) -> statuses.add(s));
      XrpcClient c = access.runner();
      assertEquals(runner.did(), c.did());
      Instant end = Instant.now().plusSeconds(TOKEN_SECONDS * 4L);
      int i = 0;
      java.util.Set<String> tokens = new java.util.HashSet<>();
      while (Instant.now().isBefore(end)) {
        c.putRecord(runner.did(), "dev.knotless.check", "c" + i, check(i), Swap.none());
        tokens.add(
            Json.read(Files.readAllBytes(file)).path(runner.did()).path("refreshToken").asText());
        i++;
        Thread.sleep(400); // a runner's pace, not a wait for anything
      }
      // A new process's first proof carries no nonce: the PDS answers 401 use_dpop_nonce once,
      // and the call goes again with the nonce. After that, no call is refused across lifetimes.
      assertEquals(401, statuses.get(0).intValue(), statuses.toString());
      assertEquals(200, statuses.get(1).intValue(), statuses.toString());
      assertTrue(
          statuses.subList(1, statuses.size()).stream().allMatch(s -> s == 200),
          "every call after went through: " + statuses);
      assertTrue(tokens.size() >= 3, "refreshed and saved across lifetimes: " + tokens.size());
      assertNotEquals(
          first.path("refreshToken").asText(),
          Json.read(Files.readAllBytes(file)).path(runner.did()).path("refreshToken").asText());
    }
  }

  private static ObjectNode check(int n) {
    ObjectNode v = Json.object();
    v.put("status", "success");
    v.put("n", n);
    return v;
  }
}
