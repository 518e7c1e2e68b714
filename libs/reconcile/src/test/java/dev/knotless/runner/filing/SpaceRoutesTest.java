package dev.knotless.runner.filing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.check.CheckKeys;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * A process that files checks it never read routes a private repository's to its owner's space of
 * its name, and refuses, rather than let them fall back to the public account, when it cannot.
 */
class SpaceRoutesTest {
  private static final String OWNER = "did:plc:owner";
  private static final String KEY = "3krepo";
  private static final XrpcClient RUNNER = XrpcClient.create(URI.create("http://127.0.0.1:9"));

  @Test
  void aPrivateRepositorysChecksGoToItsOwnersSpaceOfItsName() throws IOException {
    CheckFiler filer = new CheckFiler(new RetryingWrites(RUNNER));
    SpaceRoutes.of(URI.create("http://127.0.0.1:9"), RUNNER, filer, Clock.systemUTC())
        .route(OWNER, KEY, "secret");
    String check = CheckKeys.repoPrefix(OWNER, KEY) + "abc.ci";
    assertEquals(new SpaceId(OWNER, "secret"), filer.spaces().spaceOf(check).space());
    assertNull(
        filer.spaces().spaceOf(CheckKeys.repoPrefix(OWNER, "3kother") + "abc.ci"),
        "another repository's checks are not routed");
  }

  @Test
  void withNoSpaceHostOrNoNameNothingIsRoutedAndTheRefusalSaysWhy() {
    CheckFiler filer = new CheckFiler(new RetryingWrites(RUNNER));
    IOException none =
        assertThrows(
            IOException.class,
            () -> SpaceRoutes.of(null, RUNNER, filer, Clock.systemUTC()).route(OWNER, KEY, "s"));
    assertTrue(
        none.getMessage().contains("no space host is named (KNOTLESS_SPACE_HOST)"),
        none.getMessage());
    IOException unnamed =
        assertThrows(
            IOException.class,
            () ->
                SpaceRoutes.of(URI.create("http://127.0.0.1:9"), RUNNER, filer, Clock.systemUTC())
                    .route(OWNER, KEY, null));
    assertTrue(unnamed.getMessage().contains("is not named"), unnamed.getMessage());
    assertTrue(!filer.spaces().any(), "nothing routed");
  }
}
