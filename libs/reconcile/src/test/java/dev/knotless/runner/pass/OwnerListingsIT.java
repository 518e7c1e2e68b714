package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.IdleRepos;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start told to watch many repositories of one owner reads their records in one listing of the
 * owner's collection, not one read each; a name the listing lacks (renamed, so it only redirects,
 * or never there) is read alone, which follows the redirect or says what is wrong.
 */
@WithPds
class OwnerListingsIT {

  @Test
  void manyRepositoriesOfOneOwnerAreReadInOneListing(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("many");
    Account runner = pds.createAccount("lister");
    List<IdleRepos.Repo> repos = IdleRepos.create(pds.pdsUrl(), owner, 30);
    // r00003 renamed to "moved": its record under the new name, a redirect under the old one.
    IdleRepos.Repo renamed = repos.get(3);
    XrpcClient client = XrpcClient.create(pds.pdsUrl());
    client.login(owner.handle(), owner.password());
    var moved = JsonNodeFactory.instance.objectNode();
    moved.put("key", renamed.key()).put("createdAt", "2026-11-29T10:00:00.000Z");
    var redirect = JsonNodeFactory.instance.objectNode();
    redirect
        .put("repo", "at://" + owner.did() + "/dev.knotless.repo/moved")
        .put("key", renamed.key())
        .put("createdAt", "2026-11-29T10:00:00.000Z");
    client.applyWrites(
        owner.did(),
        List.of(
            Write.create("dev.knotless.repo", "moved", moved),
            Write.create("dev.knotless.redirect", renamed.name(), redirect),
            Write.delete("dev.knotless.repo", renamed.name())));

    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      IdleRepos.routeThrough(tmp.resolve("cache"), proxy, owner, runner);
      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_IDENTIFIER", runner.handle());
      env.put("KNOTLESS_PASSWORD", runner.password());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cache").toString());
      PdsAccess access = PdsAccess.login(env, Clock.systemUTC());
      List<String> labels = new ArrayList<>(IdleRepos.labels(owner, repos));
      labels.add(owner.did() + "/never-there");
      proxy.reset();

      LabelReads.Result result = access.readAll(labels);

      assertEquals(30, result.read().size(), String.valueOf(result.failed()));
      for (int i = 0; i < repos.size(); i++) {
        assertEquals(repos.get(i).key(), result.read().get(i).id().repoKey());
      }
      assertEquals("moved", result.read().get(3).address().name(), "followed to its new name");
      String missing = owner.did() + "/never-there";
      assertTrue(
          result.failed().get(missing).contains("no repository never-there"),
          String.valueOf(result.failed()));
      Map<String, Integer> asked = proxy.byMethod();
      assertEquals(1, asked.get("com.atproto.repo.listRecords"), "one page lists all 30");
      // Only the two names the listing lacks are read alone, none of the 28 it holds: the renamed
      // one's record, redirect, and new record (checked, then read: 4), the missing one's record
      // and redirect (2).
      assertTrue(asked.get("com.atproto.repo.getRecord") <= 6, String.valueOf(asked));
    }
  }
}
