package dev.knotless.runner.filing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.WriteResult;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A private repository's checks go to the runner's repo in its space, by their key's repository
 * prefix, and a space's refusal is the filing's failure: nothing is tried in the runner's public
 * account instead (whose client here points at a port nothing listens on, and is not logged in).
 */
class SpaceFilingTest {
  private static final String OWNER = "did:plc:owner";
  private static final String KEY = "3kabcdefghij2";
  private static final SpaceId SPACE = new SpaceId(OWNER, "secret");

  private final List<String> calls = new ArrayList<>();
  private XrpcException refusal;
  private int refusals = Integer.MAX_VALUE;

  private SpaceClient space() {
    return (SpaceClient)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {SpaceClient.class},
            (proxy, m, args) -> {
              calls.add(m.getName() + " " + (args == null ? "" : args[0]));
              if (refusal != null && refusals-- > 0) {
                throw refusal;
              }
              return switch (m.getName()) {
                case "did" -> "did:plc:runner";
                case "putRecord" -> new WriteResult("at://did:plc:runner/c/k", "cid");
                case "uploadBlob" -> new BlobRef("bafylog", "text/plain", 3);
                default -> throw new UnsupportedOperationException(m.getName());
              };
            });
  }

  private CheckFiler filer() {
    CheckFiler filer =
        new CheckFiler(
            new RetryingWrites(
                XrpcClient.create(URI.create("http://127.0.0.1:9")),
                java.time.Clock.systemUTC(),
                pause -> {}));
    filer
        .spaces()
        .route(
            CheckKeys.repoPrefix(OWNER, KEY), new SpaceRecords(space(), SPACE, URI.create("x:/")));
    return filer;
  }

  private static CheckRecord check() {
    Instant t = Instant.parse("2026-12-05T10:00:00Z");
    return new CheckRecord(
        "at://" + OWNER + "/dev.knotless.repo/secret",
        "refs/heads/main",
        "a".repeat(40),
        null,
        null,
        "ci",
        CheckStatus.QUEUED,
        t,
        null,
        null,
        List.of(),
        null,
        List.of(),
        null);
  }

  @Test
  void aPrivateRepositorysCheckAndLogGoIntoItsSpace() throws Exception {
    CheckFiler filer = filer();
    String rkey = CheckKeys.push(OWNER, KEY, "refs/heads/main", "a".repeat(40), "ci");
    filer.file(rkey, check());
    assertEquals("bafylog", filer.uploadLog(rkey, "log".getBytes()).cid());
    filer.fileOver(rkey, "somecid", check());
    assertEquals(List.of("putRecord " + SPACE, "uploadBlob " + SPACE, "putRecord " + SPACE), calls);
  }

  @Test
  void aSpacesRefusalIsTheFailureAndNothingGoesPublic() {
    CheckFiler filer = filer();
    refusal =
        new XrpcException("com.atproto.space.putRecord", 403, SpaceErrors.NOT_MEMBER, "", null);
    String rkey = CheckKeys.push(OWNER, KEY, "refs/heads/main", "a".repeat(40), "ci");
    XrpcException e = assertThrows(XrpcException.class, () -> filer.file(rkey, check()));
    assertSame(refusal, e);
    assertThrows(XrpcException.class, () -> filer.uploadLog(rkey, "log".getBytes()));
    assertEquals(2, calls.size(), "each tried once, in the space only: " + calls);
  }

  @Test
  void aSpaceWriteThatFailsForAMomentIsTriedAgain() throws Exception {
    CheckFiler filer = filer();
    refusal = new XrpcException("com.atproto.space.putRecord", 503, null, "busy", null);
    refusals = 2;
    String rkey = CheckKeys.push(OWNER, KEY, "refs/heads/main", "a".repeat(40), "ci");
    filer.file(rkey, check());
    assertEquals(3, calls.size(), "two refusals, then the write: " + calls);
  }

  @Test
  void anotherRepositorysKeysAreNotRouted() {
    CheckFiler filer = filer();
    assertNull(
        filer
            .spaces()
            .spaceOf(
                CheckKeys.push("did:plc:other", KEY, "refs/heads/main", "a".repeat(40), "ci")));
    assertEquals(
        SPACE,
        filer
            .spaces()
            .spaceOf(CheckKeys.push(OWNER, KEY, "refs/heads/dev", "b".repeat(40), "ci"))
            .space());
  }
}
