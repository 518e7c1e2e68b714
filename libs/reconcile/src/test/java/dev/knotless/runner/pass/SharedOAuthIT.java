package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Swap;
import dev.knotless.runner.state.pg.PgOAuthSessions;
import dev.knotless.runner.state.pg.PgStateStores;
import dev.knotless.testing.Account;
import dev.knotless.testing.ConsentBrowser;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.EmbeddedPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The services' replicas sharing one OAuth session through PostgreSQL, as the reconciler, the
 * scheduler and the check-writer do when a Secret mounts the session and no app password is set: a
 * runner logged in once in a real chromium, then two replicas (two {@link PdsAccess} logins as the
 * services make them, each over its own connection pool to one embedded PostgreSQL, two writing
 * threads each) write checks across several {@value #TOKEN_SECONDS} s token lifetimes at once.
 * Every write goes through: no replica spends a refresh token another already spent (the PDS would
 * end the session, "Refresh token replayed"). A replica started later from the same, now stale,
 * file takes the session in the database, not the file's spent one.
 */
class SharedOAuthIT {
  static final int TOKEN_SECONDS = 6;

  @Test
  void replicasSharingTheSessionRefreshItWithoutSpendingATokenTwice(@TempDir Path tmp)
      throws Exception {
    try (PdsInstance pds =
            PdsInstance.start(
                PdsOptions.defaults(),
                Map.of("PROBE_OAUTH_TOKEN_SECONDS", Integer.toString(TOKEN_SECONDS)));
        ConsentBrowser browser = ConsentBrowser.start();
        EmbeddedPg pg = EmbeddedPg.start()) {
      PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
      Account runner = pds.createAccount("srunner");
      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cache").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("config").toString());
      env.put("HOME", tmp.toString());
      Path file = RunnerOAuthIT.login(browser, runner, env);

      // The Secret: the session as the operator saved it, mounted into every replica.
      Path secret = tmp.resolve("secret/session.json");
      Files.createDirectories(secret.getParent());
      JsonNode first = Json.read(Files.readAllBytes(file)).path(runner.did());
      Files.write(secret, Json.write(first));

      List<String> failures = new CopyOnWriteArrayList<>();
      Set<String> refreshTokens = ConcurrentHashMap.newKeySet();
      PgOAuthSessions probe = new PgOAuthSessions(db(pg));
      List<PdsAccess> replicas = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        replicas.add(
            PdsAccess.login(
                replica(env, tmp, secret, r),
                Clock.systemUTC(),
                (m, s, n) -> {},
                new PgOAuthSessions(db(pg))));
      }
      ExecutorService pool = Executors.newFixedThreadPool(4);
      Instant end = Instant.now().plusSeconds(TOKEN_SECONDS * 4L);
      List<Future<Integer>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        PdsAccess access = replicas.get(w % 2);
        String name = "w" + w;
        writers.add(
            pool.submit(
                () -> {
                  int i = 0;
                  while (Instant.now().isBefore(end)) {
                    try {
                      access
                          .runner()
                          .putRecord(
                              runner.did(),
                              "dev.knotless.check",
                              name + "-" + i,
                              RunnerOAuthIT.check(i),
                              Swap.none());
                    } catch (Exception e) {
                      failures.add(name + "-" + i + ": " + e.getMessage());
                    }
                    refreshTokens.add(
                        Json.read(probe.read(runner.did()).orElseThrow())
                            .path("refreshToken")
                            .asText());
                    i++;
                    Thread.sleep(100); // a busy service's pace, not a wait for anything
                  }
                  return i;
                }));
      }
      int writes = 0;
      for (Future<Integer> f : writers) {
        writes += f.get();
      }
      pool.shutdown();
      assertEquals(List.of(), failures, "every write of " + writes + " went through");
      assertTrue(refreshTokens.size() >= 3, "refreshed across lifetimes: " + refreshTokens.size());

      // A replica restarting from the same file: the file's refresh token is spent by now, so it
      // must resume the database's session, and it writes.
      String saved = probe.read(runner.did()).orElseThrow();
      assertFalse(saved.contains(first.path("refreshToken").asText()));
      PdsAccess late =
          PdsAccess.login(
              replica(env, tmp, secret, 2),
              Clock.systemUTC(),
              (m, s, n) -> {},
              new PgOAuthSessions(db(pg)));
      late.runner()
          .putRecord(
              runner.did(), "dev.knotless.check", "late", RunnerOAuthIT.check(0), Swap.none());
    }
  }

  /** A replica's environment: no password, the mounted session, a config directory of its own. */
  private static Map<String, String> replica(
      Map<String, String> env, Path tmp, Path secret, int n) {
    Map<String, String> r = new HashMap<>(env);
    r.remove("KNOTLESS_PASSWORD");
    r.put("KNOTLESS_CONFIG_DIR", tmp.resolve("replica-" + n).toString());
    r.put(RunnerSessions.SEED, secret.toString());
    return r;
  }

  private static PGSimpleDataSource db(EmbeddedPg pg) {
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setUrl(pg.jdbcUrl());
    db.setUser("postgres");
    db.setPassword("postgres");
    return db;
  }
}
