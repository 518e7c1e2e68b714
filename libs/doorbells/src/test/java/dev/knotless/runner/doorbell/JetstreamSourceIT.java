package dev.knotless.runner.doorbell;

import static dev.knotless.runner.doorbell.RecordingSink.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Jetstream doorbells against a local WebSocket server speaking Jetstream's JSON. */
class JetstreamSourceIT {
  private static final String ALICE = "did:plc:alice";
  private static final String BOB = "did:plc:bob";
  private static final RepoId APP = new RepoId(ALICE, "3kapp2222222a");
  private static final RepoId LIB = new RepoId(ALICE, "3klib2222222a");
  private static final RepoId TOOL = new RepoId(BOB, "3ktool222222a");
  private static final List<RepoId> ALL = List.of(APP, LIB, TOOL);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final SourceTimings FAST =
      new SourceTimings(
          Duration.ofMillis(300),
          Duration.ofMillis(50),
          Duration.ofMillis(400),
          Duration.ofSeconds(5));

  private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
  private final ExecutorService passPool = Executors.newFixedThreadPool(4);
  private final DoorMatcher matcher = new DoorMatcher();

  /** What each repository's newest ref generation is "on the PDS", as a pass would read it. */
  private final Map<RepoId, Integer> pdsGeneration = new ConcurrentHashMap<>();

  /** Each pass: the repo, its reasons and the generation it read. */
  private final List<Object[]> passes = new CopyOnWriteArrayList<>();

  private TestWebSocketServer server;
  private Doors doors;
  private RecordingSink sink;
  private JetstreamSource source;

  JetstreamSourceIT() {
    matcher.watch(new WatchedRepo(APP, "app"));
    matcher.watch(new WatchedRepo(LIB, "lib"));
    matcher.watch(new WatchedRepo(TOOL, "tool"));
  }

  private void start(Duration sweep) throws Exception {
    server = new TestWebSocketServer();
    doors =
        new Doors(
            (repo, reasons) ->
                passes.add(new Object[] {repo, reasons, pdsGeneration.getOrDefault(repo, 0)}),
            passPool,
            DoorClock.of(timers),
            sweep);
    ALL.forEach(doors::open);
    sink = new RecordingSink(doors, ALL);
    source = new JetstreamSource(server.url(), matcher, sink, DoorClock.of(timers), FAST);
    source.start();
    await("the first connection", WAIT, () -> source.connections() == 1);
  }

  @AfterEach
  void stop() throws Exception {
    if (source != null) {
      source.close();
    }
    if (doors != null) {
      doors.close();
    }
    if (server != null) {
      server.close();
    }
    timers.shutdownNow();
    passPool.shutdownNow();
  }

  @Test
  void theSubscriptionAsksForTheThreeCollectionsAndTheWatchedOwnersWithoutACursor()
      throws Exception {
    start(Doors.DEFAULT_SWEEP);

    assertEquals(
        List.of(
            "/subscribe?wantedCollections=dev.knotless.ref&wantedCollections=dev.knotless.repo"
                + "&wantedCollections=dev.knotless.rerun"
                + "&wantedDids=did%3Aplc%3Aalice&wantedDids=did%3Aplc%3Abob"),
        server.targets());
  }

  @Test
  void aFrameForAWatchedRepositoryRingsOnlyItsDoorAndUnknownOnesRingNothing() throws Exception {
    start(Doors.DEFAULT_SWEEP);
    await("the connection's passes", WAIT, () -> passes.size() == 3);

    server.sendText(commit("did:plc:mallory", "dev.knotless.ref", "3kapp2222222a.forged"));
    server.sendText(commit(ALICE, "dev.knotless.ref", "3kunwatched22.abc"));
    server.sendText(commit(ALICE, "app.bsky.feed.post", "3kapp2222222a.x"));
    server.sendText("{\"did\":\"" + ALICE + "\",\"time_us\":1,\"kind\":\"identity\"}");
    server.sendText("not json at all");
    server.sendText(commit(ALICE, "dev.knotless.ref", "3kapp2222222a.mainhash"));
    await("the frame's ring", WAIT, () -> !sink.frameRings().isEmpty());
    server.sendText(commit(BOB, "dev.knotless.repo", "tool"));
    await("the repo record's ring", WAIT, () -> sink.frameRings().size() == 2);

    assertEquals(
        List.of(
            new RecordingSink.Ring(APP, Doorbell.frame(DoorMatcher.REF)),
            new RecordingSink.Ring(TOOL, Doorbell.frame(DoorMatcher.REPO))),
        sink.frameRings());
    await("the frames' passes", WAIT, () -> passes.size() == 5);
    // The two frames' passes run side by side on the pass pool, so in either order.
    List<Object[]> framePasses = passes.subList(3, 5);
    Object[] app = framePasses.stream().filter(p -> APP.equals(p[0])).findFirst().orElseThrow();
    assertEquals(Set.of(Doorbell.frame(DoorMatcher.REF)), app[1]);
    assertEquals(
        Set.of(APP, TOOL), Set.of(framePasses.get(0)[0], framePasses.get(1)[0]), "one pass each");
  }

  @Test
  void aPushWhoseFrameWasDroppedIsPickedUpByTheSweep() throws Exception {
    start(Duration.ofMillis(500));
    doors.startSweeping();
    await("the connection's passes", WAIT, () -> passes.size() >= 3);

    pdsGeneration.put(APP, 2); // pushed, but Jetstream never sends the frame

    await(
        "a sweep pass that reads the push",
        WAIT,
        () ->
            passes.stream()
                .anyMatch(
                    p ->
                        p[0].equals(APP) && p[1].equals(Set.of(Doorbell.SWEEP)) && p[2].equals(2)));
    assertEquals(List.of(), sink.frameRings());
  }

  @Test
  void aConnectionThatGoesSilentIsReplacedAndTheNewOneRingsEveryDoor() throws Exception {
    start(Doors.DEFAULT_SWEEP);
    server.answerPings(false);
    long cut = System.nanoTime();

    await("a second connection", WAIT, () -> source.connections() == 2);

    long tookMs = (System.nanoTime() - cut) / 1_000_000;
    assertTrue(server.pings() >= 1, "the quiet connection was pinged first");
    assertTrue(tookMs >= 600, "given up only after 300 ms quiet plus 300 ms unanswered: " + tookMs);
    // The count goes up as the connection opens; its rings follow on the connection's thread.
    await(
        "the second connection's rings",
        WAIT,
        () -> ALL.stream().allMatch(r -> sink.count(r, Doorbell.connect("jetstream")) >= 2));
    for (RepoId repo : ALL) {
      assertEquals(2, sink.count(repo, Doorbell.connect("jetstream")), repo.toString());
    }
  }

  @Test
  void aMessageThatNeverEndsIsGivenUpAndTheNewConnectionRingsEveryDoor() throws Exception {
    start(Doors.DEFAULT_SWEEP);
    await("the connection's passes", WAIT, () -> passes.size() == 3);

    server.sendUnendedText(WebSocketSource.MAX_MESSAGE_CHARS + (2L << 20));

    await("a second connection", WAIT, () -> source.connections() == 2);
    await(
        "the second connection's rings",
        WAIT,
        () -> ALL.stream().allMatch(r -> sink.count(r, Doorbell.connect("jetstream")) >= 2));
  }

  @Test
  void aQuietConnectionThatAnswersItsPingsIsKept() throws Exception {
    start(Doors.DEFAULT_SWEEP);

    await("three answered pings", WAIT, () -> server.pings() >= 3);

    assertEquals(1, source.connections());
    assertEquals(1, server.connections());
  }

  @Test
  void eachConnectionRingsEveryDoor() throws Exception {
    start(Doors.DEFAULT_SWEEP);
    await("the first connection's passes", WAIT, () -> passes.size() == 3);

    server.dropAll();
    await("a second connection", WAIT, () -> source.connections() == 2);
    await("the second connection's passes", WAIT, () -> passes.size() == 6);

    for (RepoId repo : ALL) {
      assertEquals(2, sink.count(repo, Doorbell.connect("jetstream")), repo.toString());
      assertEquals(
          2,
          passes.stream()
              .filter(p -> p[0].equals(repo) && p[1].equals(Set.of(Doorbell.connect("jetstream"))))
              .count());
    }
    assertEquals(2, server.connections());
  }

  @Test
  void aNewOwnerIsSentAsAnOptionsUpdateWithoutReconnecting() throws Exception {
    start(Doors.DEFAULT_SWEEP);

    matcher.watch(new WatchedRepo(new RepoId("did:plc:carol", "3kcarol22222a"), "site"));

    await("the options update", WAIT, () -> !server.received().isEmpty());
    assertEquals(
        "{\"type\":\"options_update\",\"payload\":{\"wantedCollections\":[\"dev.knotless.ref\","
            + "\"dev.knotless.repo\",\"dev.knotless.rerun\"],\"wantedDids\":[\"did:plc:alice\","
            + "\"did:plc:bob\",\"did:plc:carol\"]}}",
        server.received().get(0));
    assertEquals(1, source.connections());
  }

  @Test
  void aServerThatCannotBeReachedIsTriedAgainWithABackoffThatDoublesUpToItsCap() throws Exception {
    FakeClock clock = new FakeClock();
    int port;
    try (java.net.ServerSocket probe =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort(); // closed again: nothing listens there now
    }
    List<Doorbell> rings = new CopyOnWriteArrayList<>();
    DoorbellSink counting =
        new DoorbellSink() {
          @Override
          public void ring(RepoId repo, Doorbell reason) {
            rings.add(reason);
          }

          @Override
          public void ringAll(Doorbell reason) {
            rings.add(reason);
          }
        };
    source =
        new JetstreamSource(
            java.net.URI.create("ws://127.0.0.1:" + port + "/subscribe"),
            matcher,
            counting,
            clock,
            FAST);
    source.start();

    List<Duration> waits = new java.util.ArrayList<>();
    for (int attempt = 0; attempt < 5; attempt++) {
      await("a reconnect to be scheduled", WAIT, () -> clock.pendingTimers() == 1);
      Duration wait = clock.pendingDelays().get(0);
      waits.add(wait);
      clock.advance(wait);
    }

    assertEquals(
        List.of(
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(400)),
        waits);
    assertEquals(0, source.connections());
    assertEquals(List.of(), rings, "no connection, so no door rang");
  }

  @Test
  void aRestartResumesFiveSecondsBeforeTheLastEventItSaw(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
    java.nio.file.Path file = tmp.resolve("cursor");
    server = new TestWebSocketServer();
    doors =
        new Doors(
            (repo, reasons) -> passes.add(new Object[] {repo, reasons, 0}),
            passPool,
            DoorClock.of(timers),
            Doors.DEFAULT_SWEEP);
    ALL.forEach(doors::open);
    sink = new RecordingSink(doors, ALL);
    source =
        new JetstreamSource(
            server.url(),
            matcher,
            sink,
            DoorClock.of(timers),
            FAST,
            new FileCursorStore(file, java.time.Clock.systemUTC()));
    source.start();
    await("the first connection", WAIT, () -> source.connections() == 1);
    server.sendText(commit(ALICE, "dev.knotless.ref", "3kapp2222222a.mainhash"));
    server.sendText(
        "{\"did\":\"" + ALICE + "\",\"time_us\":1725911170000000,\"kind\":\"identity\"}");
    await("both events read", WAIT, () -> source.cursor() == 1725911170000000L);
    source.close();
    assertEquals("1725911170000000", java.nio.file.Files.readString(file).strip());

    source =
        new JetstreamSource(
            server.url(),
            matcher,
            sink,
            DoorClock.of(timers),
            FAST,
            new FileCursorStore(file, java.time.Clock.systemUTC()));
    source.start();
    await("the second connection", WAIT, () -> server.targets().size() == 2);
    String first = server.targets().get(0);
    String second = server.targets().get(1);
    assertFalse(first.contains("cursor="), first);
    assertTrue(second.endsWith("&cursor=1725911165000000"), second);
  }

  private static String commit(String did, String collection, String rkey) {
    return "{\"did\":\""
        + did
        + "\",\"time_us\":1725911162329308,\"kind\":\"commit\",\"commit\":{\"rev\":\"3l3qo2vutsw2b\","
        + "\"operation\":\"create\",\"collection\":\""
        + collection
        + "\",\"rkey\":\""
        + rkey
        + "\",\"record\":{\"$type\":\""
        + collection
        + "\"},\"cid\":\"bafyreidwaivazkwu67xztlmuobx35hs2lnfh3kolmgfmucldvhd3sgzcqi\"}}";
  }
}
