package dev.knotless.runner.exec.cache;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A runner's process cut down to its caches, for {@link CacheStoreIT} to kill with SIGKILL: it
 * leaves one run's overlay mounted, then writes many files through another's and promotes them.
 */
public final class PromotingChild {

  private PromotingChild() {}

  public static void main(String[] args) throws Exception {
    CacheStore store = new CacheStore(Path.of(args[0]), CacheStore.DEFAULT_MAX_BYTES);
    RunCaches reader = store.open(CacheStoreIT.request(CacheUse.READ), "run-reader", null);
    Files.writeString(reader.mounts().get(0).host().resolve("mine"), "the reader's\n");
    RunCaches writer =
        store.open(CacheStoreIT.request(CacheUse.PROMOTE_ON_PASS), "run-writer", null);
    Path merged = writer.mounts().get(0).host();
    for (int d = 0; d < 100; d++) {
      Path dir = Files.createDirectories(merged.resolve("new/d" + d));
      for (int f = 0; f < 100; f++) {
        Files.writeString(dir.resolve("f" + f), "x");
      }
    }
    System.out.println("promoting");
    System.out.flush();
    List<String> lines = writer.finish(true);
    System.out.println(lines);
    Thread.sleep(60_000);
  }
}
