package dev.knotless.atproto.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.cache.MutableClock;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resolver's use of the cache; resolution itself is exercised against a real PLC in IdentityIT.
 */
class IdentityResolverTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DID = "did:plc:jgy5nm3rsixvgm4hfqgjmjee";

  @TempDir Path dir;

  /** Nothing listens on port 9 of the loopback, so any lookup that leaves the cache fails. */
  private static final Map<String, String> NOWHERE =
      Map.of(
          "KNOTLESS_PLC_URL",
          "http://127.0.0.1:9",
          "KNOTLESS_HANDLE_RESOLVER",
          "http://127.0.0.1:9");

  @Test
  void aCachedIdentityIsAnsweredWithoutAskingAnyoneForAnHour() throws Exception {
    MutableClock clock = new MutableClock();
    LocalCache cache = new LocalCache(dir, clock);
    cache.put(
        CacheFile.IDENTITY,
        "alice.test",
        JSON.createObjectNode().put("did", DID).put("pds", "http://localhost:41107"));
    cache.put(CacheFile.HANDLES, DID, JSON.createObjectNode().put("handle", "alice.test"));
    IdentityResolver resolver = IdentityResolver.fromEnvironment(NOWHERE, cache);

    Identity identity = resolver.resolve("@Alice.test");
    assertEquals(new Identity(DID, "alice.test", URI.create("http://localhost:41107")), identity);

    clock.advance(Duration.ofMinutes(61));
    IdentityException e =
        assertThrows(IdentityException.class, () -> resolver.resolve("alice.test"));
    assertTrue(e.getMessage().contains("could not reach http://127.0.0.1:9"), e.getMessage());
  }

  @Test
  void forgetDropsTheNameAndItsDid() throws Exception {
    LocalCache cache = new LocalCache(dir, new MutableClock());
    cache.put(
        CacheFile.IDENTITY,
        "alice.test",
        JSON.createObjectNode().put("did", DID).put("pds", "http://localhost:41107"));
    cache.put(
        CacheFile.IDENTITY,
        DID,
        JSON.createObjectNode().put("did", DID).put("pds", "http://localhost:41107"));
    cache.put(CacheFile.HANDLES, DID, JSON.createObjectNode().put("handle", "alice.test"));
    IdentityResolver resolver = IdentityResolver.fromEnvironment(NOWHERE, cache);

    resolver.forget("alice.test");

    assertTrue(cache.get(CacheFile.IDENTITY, "alice.test").isEmpty());
    assertTrue(cache.get(CacheFile.IDENTITY, DID).isEmpty());
    assertTrue(cache.get(CacheFile.HANDLES, DID).isEmpty());
    assertThrows(IdentityException.class, () -> resolver.resolve(DID));
  }

  @Test
  void malformedInputIsRefusedWithoutALookup() {
    IdentityResolver resolver = IdentityResolver.fromEnvironment(NOWHERE, null);

    IllegalArgumentException handle =
        assertThrows(IllegalArgumentException.class, () -> resolver.resolve("alice"));
    assertTrue(handle.getMessage().contains("invalid handle \"alice\""), handle.getMessage());
    IllegalArgumentException did =
        assertThrows(IllegalArgumentException.class, () -> resolver.resolve("did:plc:nope"));
    assertTrue(did.getMessage().contains("invalid DID \"did:plc:nope\""), did.getMessage());
  }
}
