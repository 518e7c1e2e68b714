package dev.knotless.runner.doorbell;

import static dev.knotless.runner.doorbell.RecordingSink.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Firehose doorbells against the real reference PDS's subscribeRepos. */
@WithPds
class FirehoseSourceIT {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ObjectNode REF_VALUE =
      JsonNodeFactory.instance.objectNode().put("target", "0".repeat(40)).put("generation", 1);

  private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
  private final ExecutorService passPool = Executors.newFixedThreadPool(4);
  private final DoorMatcher matcher = new DoorMatcher();
  private Doors doors;
  private FirehoseSource source;

  @AfterEach
  void stop() {
    if (source != null) {
      source.close();
    }
    if (doors != null) {
      doors.close();
    }
    timers.shutdownNow();
    passPool.shutdownNow();
  }

  private RecordingSink listen(URI pds, List<RepoId> watched) {
    doors = new Doors((repo, reasons) -> {}, passPool, DoorClock.of(timers), Doors.DEFAULT_SWEEP);
    watched.forEach(doors::open);
    RecordingSink sink = new RecordingSink(doors, watched);
    source =
        new FirehoseSource(
            pds,
            matcher,
            sink,
            DoorClock.of(timers),
            new SourceTimings(
                Duration.ofSeconds(5),
                Duration.ofMillis(50),
                Duration.ofMillis(500),
                Duration.ofSeconds(5)));
    source.start();
    await("the firehose connection", WAIT, () -> source.connections() == 1);
    return sink;
  }

  @Test
  void aRefWrittenWithApplyWritesRingsTheWatchedDoorWithinSeconds(PdsInstance pds)
      throws Exception {
    Account owner = pds.createAccount("fire");
    RepoId app = new RepoId(owner.did(), Tid.next());
    RepoId lib = new RepoId(owner.did(), Tid.next());
    matcher.watch(new WatchedRepo(app, "app"));
    matcher.watch(new WatchedRepo(lib, "lib"));
    RecordingSink sink = listen(pds.pdsUrl(), List.of(app, lib));
    XrpcClient client = XrpcClient.create(pds.pdsUrl());
    client.login(owner.handle(), owner.password());

    String unwatchedKey = Tid.next();
    client.applyWrites(
        owner.did(),
        List.of(Write.create("dev.knotless.ref", unwatchedKey + "." + ref("main"), REF_VALUE)));
    long written = System.nanoTime();
    client.applyWrites(
        owner.did(),
        List.of(Write.create("dev.knotless.ref", lib.repoKey() + "." + ref("main"), REF_VALUE)));
    await("lib's ring", WAIT, () -> !sink.frameRings().isEmpty());
    long ringMs = (System.nanoTime() - written) / 1_000_000;

    assertEquals(
        List.of(new RecordingSink.Ring(lib, Doorbell.frame(DoorMatcher.REF))), sink.frameRings());
    assertTrue(ringMs < 5_000, "rang " + ringMs + " ms after the write");
    System.out.println("firehose ring latency after applyWrites: " + ringMs + " ms");

    client.applyWrites(
        owner.did(),
        List.of(
            Write.create("dev.knotless.rerun", app.repoKey() + "." + Tid.next(), REF_VALUE),
            Write.delete("dev.knotless.ref", lib.repoKey() + "." + ref("main"))));
    await("the rerun's and the delete's rings", WAIT, () -> sink.frameRings().size() == 3);
    assertEquals(
        List.of(
            new RecordingSink.Ring(lib, Doorbell.frame(DoorMatcher.REF)),
            new RecordingSink.Ring(app, Doorbell.frame(DoorMatcher.RERUN)),
            new RecordingSink.Ring(lib, Doorbell.frame(DoorMatcher.REF))),
        sink.frameRings());
  }

  @Test
  void theSameKeysInAnotherAccountRingNothing(PdsInstance pds) throws Exception {
    Account owner = pds.createAccount("fireown");
    Account stranger = pds.createAccount("firestr");
    RepoId app = new RepoId(owner.did(), Tid.next());
    matcher.watch(new WatchedRepo(app, "app"));
    RecordingSink sink = listen(pds.pdsUrl(), List.of(app));
    XrpcClient strangers = XrpcClient.create(pds.pdsUrl());
    strangers.login(stranger.handle(), stranger.password());
    XrpcClient owners = XrpcClient.create(pds.pdsUrl());
    owners.login(owner.handle(), owner.password());

    strangers.applyWrites(
        stranger.did(),
        List.of(
            Write.create("dev.knotless.ref", app.repoKey() + "." + ref("main"), REF_VALUE),
            Write.create("dev.knotless.repo", "app", JsonNodeFactory.instance.objectNode())));
    owners.applyWrites(
        owner.did(),
        List.of(
            Write.create(
                "dev.knotless.repo",
                "app",
                JsonNodeFactory.instance.objectNode().put("key", app.repoKey()))));
    await("the owner's repo record ring", WAIT, () -> !sink.frameRings().isEmpty());

    assertEquals(
        List.of(new RecordingSink.Ring(app, Doorbell.frame(DoorMatcher.REPO))), sink.frameRings());
  }

  @Test
  void anErrorFrameIsLoggedAndTheConnectionMadeAgain() throws Exception {
    RepoId app = new RepoId("did:plc:alice", "3kapp2222222a");
    matcher.watch(new WatchedRepo(app, "app"));
    try (TestWebSocketServer server = new TestWebSocketServer()) {
      URI pds = URI.create("http://127.0.0.1:" + server.url().getPort());
      RecordingSink sink = listen(pds, List.of(app));
      await("the server's side of it", WAIT, () -> server.connections() == 1);

      server.sendBinary(FramesTest.frame(Map.of("op", -1), Map.of("error", "ConsumerTooSlow")));

      await("a second connection", WAIT, () -> source.connections() == 2);
      assertEquals(2, sink.count(app, Doorbell.connect("firehose")));
      assertEquals("/xrpc/com.atproto.sync.subscribeRepos", server.targets().get(0));
    }
  }

  private static String ref(String name) {
    return Hashes.h("refs/heads/" + name);
  }
}
