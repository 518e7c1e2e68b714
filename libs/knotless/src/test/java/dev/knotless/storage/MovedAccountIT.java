package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.WithPds;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An account that moved to another PDS: the identity cached for it still names the PDS it left,
 * which says the account is not there, so the client drops what it cached, resolves the account
 * again and pushes and clones at the new PDS at once, without waiting out the cache's hour.
 */
@WithPds
class MovedAccountIT {

  @Test
  void aPushAndACloneWorkAtOnceAfterTheAccountMovedToAnotherPds(PdsInstance left, @TempDir Path tmp)
      throws Exception {
    try (PdsInstance now = PdsInstance.start(PdsOptions.defaults())) {
      Account owner = now.createAccount("moved");
      GitUser me = new GitUser(now, owner, tmp.resolve("home"));
      String url = "knotless://" + owner.handle() + "/moving";
      Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
      me.ok(a, "remote", "add", "origin", url);
      me.ok(a, "push", "-q", "origin", "main");

      // What the cache would hold had the account lived at the other PDS an hour ago.
      LocalCache cache = new LocalCache(tmp.resolve("home/cache"), Clock.systemUTC());
      ObjectNode stale = JsonNodeFactory.instance.objectNode();
      stale.put("did", owner.did()).put("pds", left.pdsUrl().toString());
      cache.put(CacheFile.IDENTITY, owner.handle(), stale);
      cache.put(CacheFile.IDENTITY, owner.did(), stale);

      String tip = me.commit(a, "b.txt", "b\n");
      me.ok(a, "push", "-q", "origin", "main");
      // The DID document names the PDS as localhost; the port tells the two apart.
      URI cached =
          URI.create(
              cache.get(CacheFile.IDENTITY, owner.handle()).orElseThrow().path("pds").asText());
      assertEquals(
          now.pdsUrl().getPort(),
          cached.getPort(),
          "the identity is resolved again and cached at the PDS the account is at now");

      cache.put(CacheFile.IDENTITY, owner.handle(), stale);
      cache.put(CacheFile.IDENTITY, owner.did(), stale);
      me.ok(tmp, "clone", "-q", url, "fresh");
      assertEquals(tip, me.ok(tmp.resolve("fresh"), "rev-parse", "HEAD").strip());
    }
  }
}
