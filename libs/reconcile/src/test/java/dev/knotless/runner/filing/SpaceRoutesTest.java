package dev.knotless.runner.filing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.check.CheckKeys;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A process that files checks it never read routes a private repository's to the space its records
 * live in (its owner's space of its name, or where a rename's redirect leads), checked by key, and
 * refuses, rather than let them fall back to the public account, when it cannot.
 */
class SpaceRoutesTest {
  private static final String OWNER = "did:plc:owner";
  private static final String KEY = "3krepo";
  private static final XrpcClient RUNNER = XrpcClient.create(URI.create("http://127.0.0.1:9"));

  /** A space host holding {@code records}, by {@code <space> <collection> <rkey>}. */
  private static SpaceClient host(Map<String, ObjectNode> records, List<String> asked) {
    return (SpaceClient)
        Proxy.newProxyInstance(
            SpaceRoutesTest.class.getClassLoader(),
            new Class<?>[] {SpaceClient.class},
            (p, m, args) -> {
              if (!m.getName().equals("getRecord")) {
                throw new UnsupportedOperationException(m.getName());
              }
              String at = args[0] + " " + args[2] + " " + args[3];
              asked.add(at);
              ObjectNode v = records.get(at);
              return Optional.ofNullable(
                  v == null
                      ? null
                      : new Record("at://" + args[1] + "/" + args[2] + "/" + args[3], "bafy", v));
            });
  }

  private static ObjectNode repo(String key) {
    return JsonNodeFactory.instance.objectNode().put("key", key);
  }

  private static ObjectNode redirect(String name, String key, String space) {
    ObjectNode n =
        JsonNodeFactory.instance
            .objectNode()
            .put("repo", "at://" + OWNER + "/dev.knotless.repo/" + name)
            .put("key", key);
    return space == null ? n : n.put("space", space);
  }

  @Test
  void aPrivateRepositorysChecksGoToItsOwnersSpaceOfItsName() throws IOException {
    CheckFiler filer = new CheckFiler(new RetryingWrites(RUNNER));
    List<String> asked = new ArrayList<>();
    SpaceClient host = host(Map.of(OWNER + "/secret dev.knotless.repo secret", repo(KEY)), asked);
    SpaceRoutes routes = SpaceRoutes.over(host, URI.create("http://127.0.0.1:9"), filer.spaces());
    routes.route(OWNER, KEY, "secret");
    String check = CheckKeys.repoPrefix(OWNER, KEY) + "abc.ci";
    assertEquals(new SpaceId(OWNER, "secret"), filer.spaces().spaceOf(check).space());
    assertNull(
        filer.spaces().spaceOf(CheckKeys.repoPrefix(OWNER, "3kother") + "abc.ci"),
        "another repository's checks are not routed");
    int asks = asked.size();
    routes.route(OWNER, KEY, "secret");
    assertEquals(asks, asked.size(), "looked up once");
  }

  @Test
  void aRenamedOnesChecksGoToTheSpaceItsRecordsLiveInNotTheSpaceOfItsNewName() throws IOException {
    CheckFiler filer = new CheckFiler(new RetryingWrites(RUNNER));
    // Made as "secret", renamed "hidden": the records stay in the space "secret" (the repository
    // record under the new name there), and the space "hidden" holds only a redirect to it.
    SpaceClient host =
        host(
            Map.of(
                OWNER + "/secret dev.knotless.repo hidden", repo(KEY),
                OWNER + "/secret dev.knotless.redirect secret", redirect("hidden", KEY, null),
                OWNER + "/hidden dev.knotless.redirect hidden",
                    redirect("hidden", KEY, OWNER + "/secret")),
            new ArrayList<>());
    SpaceRoutes.over(host, URI.create("http://127.0.0.1:9"), filer.spaces())
        .route(OWNER, KEY, "hidden");
    assertEquals(
        new SpaceId(OWNER, "secret"),
        filer.spaces().spaceOf(CheckKeys.repoPrefix(OWNER, KEY) + "abc.ci").space(),
        "the records' space, not the space of the new name");
  }

  @Test
  void aSpaceWhoseRepositoryHasAnotherKeyOrNoneIsRefusedAndNothingRouted() {
    CheckFiler filer = new CheckFiler(new RetryingWrites(RUNNER));
    SpaceClient host =
        host(
            Map.of(OWNER + "/secret dev.knotless.repo secret", repo("3kanother")),
            new ArrayList<>());
    IOException other =
        assertThrows(
            IOException.class,
            () ->
                SpaceRoutes.over(host, URI.create("http://127.0.0.1:9"), filer.spaces())
                    .route(OWNER, KEY, "secret"));
    assertTrue(
        other.getMessage().contains("holds no repository with the key " + KEY), other.getMessage());
    assertTrue(other.getMessage().contains("its check is not filed"), other.getMessage());
    IOException none =
        assertThrows(
            IOException.class,
            () ->
                SpaceRoutes.over(
                        host(Map.of(), new ArrayList<>()),
                        URI.create("http://127.0.0.1:9"),
                        filer.spaces())
                    .route(OWNER, KEY, "gone"));
    assertTrue(none.getMessage().contains("could not be found"), none.getMessage());
    assertTrue(!filer.spaces().any(), "nothing routed");
  }

  /** A host failing the first {@code failures} asks with a 503, then holding the repository. */
  private static SpaceClient flaky(int failures, int[] asks) {
    SpaceClient up =
        host(Map.of(OWNER + "/secret dev.knotless.repo secret", repo(KEY)), new ArrayList<>());
    return (SpaceClient)
        Proxy.newProxyInstance(
            SpaceRoutesTest.class.getClassLoader(),
            new Class<?>[] {SpaceClient.class},
            (p, m, args) -> {
              if (++asks[0] <= failures) {
                throw new dev.knotless.atproto.XrpcException(
                    "com.atproto.space.getRecord", 503, null, "unavailable", null);
              }
              return m.invoke(up, args);
            });
  }

  @Test
  void aLookupTheHostFailsForAMomentIsAskedAgainAndOneItKeepsFailingIsAwayNotARefusal()
      throws IOException {
    CheckFiler filer = new CheckFiler(new RetryingWrites(RUNNER));
    int[] asks = {0};
    SpaceRoutes.over(flaky(1, asks), URI.create("http://127.0.0.1:9"), filer.spaces())
        .route(OWNER, KEY, "secret");
    assertEquals(
        new SpaceId(OWNER, "secret"),
        filer.spaces().spaceOf(CheckKeys.repoPrefix(OWNER, KEY) + "abc.ci").space(),
        "asked again after the 503");

    CheckFiler other = new CheckFiler(new RetryingWrites(RUNNER));
    int[] always = {0};
    assertThrows(
        SpaceRoutes.HostAway.class,
        () ->
            SpaceRoutes.over(
                    flaky(Integer.MAX_VALUE, always),
                    URI.create("http://127.0.0.1:9"),
                    other.spaces())
                .route(OWNER, KEY, "secret"));
    assertTrue(always[0] > 1, "tried more than once: " + always[0]);
    assertTrue(!other.spaces().any(), "nothing routed: the event is tried again");
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
