package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.doorbell.RepoId;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpaceNoticesTest {
  private static final String RUNNER = "did:plc:runner";
  private static final String APPVIEW = "did:plc:appview";
  private static final RepoId SITE = new RepoId("did:plc:alice", "3site");
  private static final RepoId NOTES = new RepoId("did:plc:bob", "3notes");
  private static final SpaceId SITE_SPACE = new SpaceId("did:plc:alice", "site");
  private static final SpaceId NOTES_SPACE = new SpaceId("did:plc:bob", "notes");

  /** A clock a test moves. */
  private static final class Moving extends Clock {
    Instant now = Instant.parse("2026-12-05T00:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  private final Moving clock = new Moving();
  private final List<String> registered = new ArrayList<>();
  private final Deque<Object> replies = new ArrayDeque<>();
  private final List<String> cursorsAsked = new ArrayList<>();
  private boolean refuseRegistration;

  private final SpaceClient client =
      (SpaceClient)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {SpaceClient.class},
              (p, m, args) -> {
                switch (m.getName()) {
                  case "did":
                    return RUNNER;
                  case "registerNotify":
                    if (refuseRegistration) {
                      throw new XrpcException("registerNotify", 500, null, "down", null);
                    }
                    registered.add(args[0] + " " + args[1]);
                    return clock.now.plus(Duration.ofDays(1));
                  default:
                    throw new UnsupportedOperationException(m.getName());
                }
              });

  private final SpaceNotices notices =
      new SpaceNotices(
          () -> Map.of(SITE, SITE_SPACE, NOTES, NOTES_SPACE),
          client,
          cursor -> {
            cursorsAsked.add(cursor);
            Object next = replies.removeFirst();
            if (next instanceof IOException e) {
              throw e;
            }
            return (SpaceWrites.Reply) next;
          },
          () -> APPVIEW,
          clock);

  private static SpaceWrites.Reply reply(String cursor, SpaceWrites.Write... writes) {
    return new SpaceWrites.Reply(cursor, false, List.of(writes));
  }

  @Test
  void eachSpaceIsRegisteredAtOnceNamingTheAppviewsServiceAndAgainTwelveHoursOn() {
    notices.renew();
    assertEquals(
        List.of(
            "did:plc:alice/site did:plc:appview#knotless_appview",
            "did:plc:bob/notes did:plc:appview#knotless_appview"),
        registered);
    clock.now = clock.now.plus(Duration.ofHours(11));
    notices.renew();
    assertEquals(2, registered.size(), "nothing due yet");
    clock.now = clock.now.plus(Duration.ofHours(1));
    notices.renew();
    assertEquals(4, registered.size(), "both made again at twelve hours");
  }

  @Test
  void aRegistrationRefusedIsTriedAgainFiveMinutesOn() {
    refuseRegistration = true;
    notices.renew();
    refuseRegistration = false;
    clock.now = clock.now.plus(Duration.ofMinutes(4));
    notices.renew();
    assertEquals(List.of(), registered);
    clock.now = clock.now.plus(Duration.ofMinutes(1));
    notices.renew();
    assertEquals(2, registered.size());
  }

  @Test
  void aWriteRingsItsRepositoryAMissedReplyRingsEveryOneAndTheRunnersOwnWriteNone()
      throws Exception {
    replies.add(new SpaceWrites.Reply("c1", true, List.of()));
    replies.add(reply("c2", new SpaceWrites.Write(SITE_SPACE, "did:plc:alice", "4")));
    replies.add(reply("c3", new SpaceWrites.Write(NOTES_SPACE, RUNNER, "5")));
    assertEquals(java.util.Set.of(SITE, NOTES), java.util.Set.copyOf(notices.awaitOnce()));
    assertEquals(List.of(SITE), notices.awaitOnce());
    assertEquals(List.of(), notices.awaitOnce());
    assertEquals(java.util.Arrays.asList(null, "c1", "c2"), cursorsAsked);
  }

  @Test
  void aWriteInASpaceNotWatchedIsIgnoredAndAFailureLosesNothing() throws Exception {
    SpaceId stranger = new SpaceId("did:plc:mallory", "x");
    replies.add(
        reply(
            "c1",
            new SpaceWrites.Write(stranger, "did:plc:mallory", "1"),
            new SpaceWrites.Write(NOTES_SPACE, "did:plc:bob", "2")));
    replies.add(new IOException("the appview's reply is not JSON"));
    replies.add(reply("c2", new SpaceWrites.Write(SITE_SPACE, "did:plc:alice", "3")));
    assertEquals(List.of(NOTES), notices.awaitOnce(), "the stranger's space rings nothing");
    assertThrows(IOException.class, notices::awaitOnce);
    assertEquals(List.of(SITE), notices.awaitOnce());
    assertEquals(
        java.util.Arrays.asList(null, "c1", "c1"),
        cursorsAsked,
        "a refused reply's cursor is not taken");
  }

  @Test
  void whileTheAppviewAnswersARegisteredSpaceIsAskedItselfOnceAMinuteOtherwiseAtEveryPoll()
      throws Exception {
    assertTrue(notices.askNow(SITE));
    assertTrue(notices.askNow(SITE), "no appview word yet: every poll asks");
    notices.renew();
    replies.add(reply("c1"));
    notices.awaitOnce();
    assertFalse(notices.askNow(SITE), "the appview answers, and the space was asked just now");
    clock.now = clock.now.plus(Duration.ofSeconds(60));
    assertTrue(notices.askNow(SITE));
    clock.now = clock.now.plus(Duration.ofSeconds(59));
    assertFalse(notices.askNow(SITE), "asked less than a minute ago");
    clock.now = clock.now.plus(Duration.ofSeconds(1));
    assertTrue(notices.askNow(SITE), "a minute on");
    replies.add(new IOException("503"));
    assertThrows(IOException.class, notices::awaitOnce);
    assertTrue(notices.askNow(SITE), "the appview failed: every poll asks again");
    assertTrue(notices.askNow(SITE));
  }

  @Test
  void aRepositoryNamedOnTheCommandLineIsAskedAtEveryPollThoughTheAppviewAnswers()
      throws Exception {
    notices.namedOnly(java.util.Set.of(NOTES));
    notices.renew();
    replies.add(reply("c1"));
    notices.awaitOnce();
    assertTrue(notices.askNow(SITE));
    assertFalse(notices.askNow(SITE), "an invited one: once a minute");
    assertTrue(notices.askNow(NOTES));
    assertTrue(notices.askNow(NOTES), "its owner may have invited no runner: every poll");
  }
}
