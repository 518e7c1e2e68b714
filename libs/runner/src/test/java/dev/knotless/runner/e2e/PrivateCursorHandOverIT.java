package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.createPrivate;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.filing.SpaceFiling;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.PrivateWatch;
import dev.knotless.runner.pass.SpaceCursors;
import dev.knotless.runner.state.pg.PgSpaceCursors;
import dev.knotless.runner.state.pg.PgStateStores;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.EmbeddedPg;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A private repository's doorbell partition moving from one reconciler to another: each replica
 * wires its spaces as the reconciler does (the runner's login, {@link PrivateWatch} on the space
 * host, the poll cursors kept in PostgreSQL), against the reference PDS and the harness's space
 * host. The one given the partition reads the repository (the hand-back's pass) and asks its space
 * from where the last holder's answered poll ended: it rings the door only for what was written
 * since, not once more for everything.
 */
@WithPds
class PrivateCursorHandOverIT {

  @Test
  void theNextHolderAsksTheSpaceFromTheStoredCursorAndRingsOnlyForNewWrites(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("handown");
    Account runner = pds.createAccount("handrun");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        EmbeddedPg pg = EmbeddedPg.start()) {
      createPrivate(pds, host, owner, tmp, "handed", runner.did());
      OwnerRepo o = OwnerRepo.inSpace(owner, pds, host.url(), "handed", tmp.resolve("owner/work"));
      o.commit(Map.of("README.md", "hi\n"));
      o.push("main");
      RepoId id = new RepoId(owner.did(), o.key());
      String label = owner.handle() + "/handed";
      PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
      PGSimpleDataSource db = new PGSimpleDataSource();
      db.setUrl(pg.jdbcUrl());
      db.setUser("postgres");
      db.setPassword("postgres");
      SpaceCursors kept = SpaceCursors.in(new PgSpaceCursors(db));

      // The first holder: its first poll asks from the start and rings for the owner's push.
      PrivateWatch first = replica(pds, runner, host, tmp.resolve("first"), label, kept);
      assertEquals(List.of(id), first.poll(), "the owner's push, heard by the first poll");
      assertEquals(List.of(), first.poll(), "nothing new");

      // Written while the partition moves: after the first holder's last poll.
      o.commit(Map.of("a.txt", "a\n"));
      o.push("main");

      // The next holder: a pass reads the repository (the hand-back), then its poll goes on from
      // the stored cursor. The push made meanwhile rings once; then nothing more.
      PrivateWatch next = replica(pds, runner, host, tmp.resolve("next"), label, kept);
      assertEquals(List.of(id), next.poll(), "the push made during the hand-over");
      assertEquals(List.of(), next.poll(), "no ring for what the first holder already heard");

      // What a holder with no stored cursor does (the reconcilers before this): asks from the
      // start and rings for writes already passed, one more pass.
      PrivateWatch forgetful = replica(pds, runner, host, tmp.resolve("forgetful"), label, null);
      assertEquals(List.of(id), forgetful.poll(), "from no cursor, everything is new");

      // A third holder, after the next one polled: nothing written since, nothing rung.
      PrivateWatch third = replica(pds, runner, host, tmp.resolve("third"), label, kept);
      assertEquals(List.of(), third.poll(), "resumed from the next holder's cursor");
      o.commit(Map.of("b.txt", "b\n"));
      o.push("main");
      assertEquals(List.of(id), third.poll(), "a later push is heard");

      // Left (the runner removed, say): the cursor goes with it, and a later watch starts over.
      third.forget(id);
      PrivateWatch again = replica(pds, runner, host, tmp.resolve("again"), label, kept);
      assertEquals(List.of(id), again.poll(), "a repository left and watched again starts over");
    }
  }

  /** A reconciler's private wiring, logged in as the runner, having read the repository once. */
  private static PrivateWatch replica(
      PdsInstance pds,
      Account runner,
      HarnessSpaceHost host,
      Path dir,
      String label,
      SpaceCursors kept)
      throws Exception {
    Map<String, String> env = new java.util.HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    // A private repository is read with OAuth: the harness PDS gives a password no space token.
    dev.knotless.testing.infra.HarnessOAuth.saveLogin(pds, runner, dir.resolve("config"));
    env.put("KNOTLESS_CONFIG_DIR", dir.resolve("config").toString());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    PdsAccess access = PdsAccess.login(env, Clock.systemUTC());
    PrivateWatch watch = access.watchPrivate(host.url(), new SpaceFiling());
    if (kept != null) {
      watch.keepCursorsIn(kept);
    }
    access.read(label);
    return watch;
  }
}
