package dev.knotless.atproto.cache;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Run in a second JVM by {@link LocalCacheTest}: writes {@code count} entries {@code <prefix><i>}
 * to keys.json in the given cache directory, as another knotless process would.
 */
public final class CacheWriterMain {
  private CacheWriterMain() {}

  public static void main(String[] args) {
    LocalCache cache = new LocalCache(Path.of(args[0]), Clock.systemUTC());
    int count = Integer.parseInt(args[2]);
    for (int i = 0; i < count; i++) {
      cache.put(CacheFile.KEYS, args[1] + i, JsonNodeFactory.instance.textNode("v" + i));
    }
  }
}
