package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Many watched repositories, made cheaply: {@code dev.knotless.repo} records with no refs, all in
 * one owner's account, written 200 to an {@code applyWrites}. A pass of one reads its record, its
 * (empty) refs and the owner's rerun requests for it, and runs nothing: what an idle pass costs.
 */
public final class IdleRepos {
  /** One of them: its record key (the name) and its repository key. */
  public record Repo(String name, String key) {}

  private IdleRepos() {}

  /** Writes {@code count} repository records named {@code r00000}, {@code r00001}, … */
  public static List<Repo> create(URI pds, Account owner, int count) throws IOException {
    return create(pds, owner, "r", count);
  }

  /** As {@link #create(URI, Account, int)}, the names starting with {@code prefix}. */
  public static List<Repo> create(URI pds, Account owner, String prefix, int count)
      throws IOException {
    XrpcClient client = XrpcClient.create(pds);
    client.login(owner.handle(), owner.password());
    List<Repo> out = new ArrayList<>();
    List<Write> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Repo r = new Repo(String.format("%s%05d", prefix, i), Tid.next());
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("key", r.key());
      v.put("defaultBranch", "main");
      v.put("createdAt", "2026-11-29T10:00:00.000Z");
      batch.add(Write.create("dev.knotless.repo", r.name(), v));
      out.add(r);
      if (batch.size() == XrpcClient.MAX_WRITES || i == count - 1) {
        client.applyWrites(owner.did(), batch);
        batch = new ArrayList<>();
      }
    }
    return out;
  }

  /** The labels a runner is given for {@code repos} of {@code owner}: {@code <did>/<name>}. */
  public static List<String> labels(Account owner, List<Repo> repos) {
    return repos.stream().map(r -> owner.did() + "/" + r.name()).toList();
  }

  /**
   * Writes into the local cache under {@code cacheDir} (a runner's {@code KNOTLESS_CACHE_DIR}) that
   * {@code accounts} live at {@code proxy}, so every request a runner using that cache makes of
   * them, reads of its owners' repositories and its own writes, goes through the proxy and is
   * counted. The cache keeps an identity for an hour.
   */
  public static void routeThrough(Path cacheDir, CountingProxy proxy, Account... accounts)
      throws IOException {
    java.nio.file.Files.createDirectories(cacheDir);
    LocalCache cache = new LocalCache(cacheDir, java.time.Clock.systemUTC());
    for (Account a : accounts) {
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("did", a.did()).put("pds", proxy.url().toString());
      cache.put(CacheFile.IDENTITY, a.handle(), v);
      cache.put(CacheFile.IDENTITY, a.did(), v);
      cache.put(
          CacheFile.HANDLES,
          a.did(),
          JsonNodeFactory.instance.objectNode().put("handle", a.handle()));
    }
  }
}
