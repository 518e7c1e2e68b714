package dev.knotless.atproto.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalCacheTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @TempDir Path dir;

  @Test
  void theCacheDirIsKnotlessCacheDirThenXdgThenHome() {
    assertEquals(
        Path.of("/k"),
        LocalCache.cacheDir(
            Map.of("KNOTLESS_CACHE_DIR", "/k", "XDG_CACHE_HOME", "/x", "HOME", "/h")));
    assertEquals(
        Path.of("/x/knotless"), LocalCache.cacheDir(Map.of("XDG_CACHE_HOME", "/x", "HOME", "/h")));
    assertEquals(Path.of("/h/.cache/knotless"), LocalCache.cacheDir(Map.of("HOME", "/h")));
  }

  @Test
  void theConfigDirIsKnotlessConfigDirThenXdgThenHome() {
    assertEquals(
        Path.of("/k"),
        LocalCache.configDir(
            Map.of("KNOTLESS_CONFIG_DIR", "/k", "XDG_CONFIG_HOME", "/x", "HOME", "/h")));
    assertEquals(
        Path.of("/x/knotless"),
        LocalCache.configDir(Map.of("XDG_CONFIG_HOME", "/x", "HOME", "/h")));
    assertEquals(Path.of("/h/.config/knotless"), LocalCache.configDir(Map.of("HOME", "/h")));
  }

  @Test
  void identityHandlesAndServersLastAnHour() {
    MutableClock clock = new MutableClock();
    LocalCache cache = new LocalCache(dir, clock);
    for (CacheFile file : List.of(CacheFile.IDENTITY, CacheFile.HANDLES, CacheFile.SERVERS)) {
      cache.put(file, "k", NODES.textNode("v"));
    }

    clock.advance(Duration.ofMinutes(59));
    for (CacheFile file : List.of(CacheFile.IDENTITY, CacheFile.HANDLES, CacheFile.SERVERS)) {
      assertEquals("v", cache.get(file, "k").orElseThrow().asText(), file.fileName());
    }
    clock.advance(Duration.ofMinutes(1));
    for (CacheFile file : List.of(CacheFile.IDENTITY, CacheFile.HANDLES, CacheFile.SERVERS)) {
      assertTrue(cache.get(file, "k").isEmpty(), file.fileName());
    }
  }

  @Test
  void keysAndEmailsAreKeptForever() {
    MutableClock clock = new MutableClock();
    LocalCache cache = new LocalCache(dir, clock);
    cache.putRepoKey("did:plc:abc", "knotless", "3lbq2q4tnbw2c");
    cache.markEmailLookedUp("did:plc:abc");

    clock.advance(Duration.ofDays(400));

    assertEquals("3lbq2q4tnbw2c", cache.repoKey("did:plc:abc", "knotless").orElseThrow());
    assertTrue(cache.emailLookedUp("did:plc:abc"));
    assertFalse(cache.emailLookedUp("did:plc:other"));
  }

  @Test
  void eachKindOfEntryGoesToItsOwnFile() throws Exception {
    LocalCache cache = new LocalCache(dir, new MutableClock());
    cache.putRepoKey("did:plc:abc", "knotless", "3lbq2q4tnbw2c");
    cache.putBlobUploadLimit(URI.create("https://pds.example"), 5_242_880);

    assertEquals(
        5_242_880L, cache.blobUploadLimit(URI.create("https://pds.example")).orElseThrow());
    JsonNode keys = JSON.readTree(dir.resolve("keys.json").toFile());
    assertEquals("3lbq2q4tnbw2c", keys.path("did:plc:abc/knotless").path("value").asText());
    assertTrue(Files.exists(dir.resolve("servers.json")));
    assertFalse(Files.exists(dir.resolve("identity.json")));
  }

  @Test
  void aMissingOrUnreadableFileReadsAsEmptyAndIsReplacedOnTheNextPut() throws Exception {
    LocalCache cache = new LocalCache(dir.resolve("not-yet"), new MutableClock());
    assertTrue(cache.repoKey("did:plc:abc", "r").isEmpty());

    Files.createDirectories(cache.dir());
    Files.writeString(cache.path(CacheFile.KEYS), "{\"did:plc:abc/r\": {\"at\": 1, \"val");
    assertTrue(cache.repoKey("did:plc:abc", "r").isEmpty());
    assertEquals(Map.of(), cache.entries(CacheFile.KEYS));

    cache.putRepoKey("did:plc:abc", "r", "key1");
    assertEquals("key1", cache.repoKey("did:plc:abc", "r").orElseThrow());
  }

  @Test
  void expiredEntriesAreDroppedOnTheNextWrite() throws Exception {
    MutableClock clock = new MutableClock();
    LocalCache cache = new LocalCache(dir, clock);
    cache.put(CacheFile.IDENTITY, "old.test", NODES.textNode("a"));
    clock.advance(Duration.ofHours(2));
    cache.put(CacheFile.IDENTITY, "new.test", NODES.textNode("b"));

    JsonNode file = JSON.readTree(cache.path(CacheFile.IDENTITY).toFile());
    assertFalse(file.has("old.test"));
    assertTrue(file.has("new.test"));
  }

  @Test
  void twoProcessesWritingAtOnceLeaveAValidFileWithEveryEntry() throws Exception {
    int perWriter = 60;
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    Process other =
        new ProcessBuilder(
                javaBin.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                CacheWriterMain.class.getName(),
                dir.toString(),
                "other-",
                Integer.toString(perWriter))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("writer.log").toFile())
            .start();
    LocalCache cache = new LocalCache(dir, java.time.Clock.systemUTC());
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    List<String> torn = new ArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              while (writing.get()) {
                try {
                  byte[] bytes = Files.readAllBytes(cache.path(CacheFile.KEYS));
                  JSON.readTree(bytes);
                  reads.incrementAndGet();
                  // Leave the two cores to the writers; reads only need to interleave.
                  Thread.sleep(1);
                } catch (NoSuchFileException e) {
                  // Not written yet.
                } catch (InterruptedException e) {
                  return;
                } catch (java.io.IOException e) {
                  synchronized (torn) {
                    torn.add(e.getMessage());
                  }
                }
              }
            });
    reader.start();
    Thread second =
        new Thread(
            () -> {
              for (int i = 0; i < perWriter; i++) {
                cache.put(CacheFile.KEYS, "thread-" + i, NODES.textNode("v" + i));
              }
            });
    second.start();
    for (int i = 0; i < perWriter; i++) {
      cache.put(CacheFile.KEYS, "main-" + i, NODES.textNode("v" + i));
    }
    second.join();
    assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the second JVM did not finish");
    writing.set(false);
    reader.join();

    assertEquals(
        0, other.exitValue(), Files.readString(dir.resolve("writer.log"), StandardCharsets.UTF_8));
    assertEquals(List.of(), torn);
    assertTrue(reads.get() > 0);
    Map<String, JsonNode> entries = cache.entries(CacheFile.KEYS);
    assertEquals(3 * perWriter, entries.size());
    assertEquals("v7", entries.get("other-7").asText());
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(
          List.of(),
          files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList());
    }
  }
}
