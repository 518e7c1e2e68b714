package dev.knotless.testing.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code registerNotify} on the harness's space host, with the harness appview hearing spaces: a
 * member's ask names the appview's {@code #knotless_appview} service, which the host finds in the
 * appview's DID document in the test PLC and tells of each write; the appview passes it on through
 * {@code dev.knotless.awaitSpaceWrites} to the member whose ask it was. A stranger cannot ask, a
 * service the document does not name is never told, and an ask ends a day after it was made.
 */
@WithPds
class SpaceNotifyHostIT {

  /** A clock the test moves, for the host's asks only. */
  private static final class Moving extends Clock {
    volatile Duration ahead = Duration.ZERO;

    @Override
    public Instant instant() {
      return Instant.now().plus(ahead);
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

  /** {@code a} logged in with OAuth, as a member of a space must be. */
  private static XrpcClient login(PdsInstance pds, Account a) throws Exception {
    return HarnessOAuth.client(pds, a);
  }

  @Test
  void aMembersAskHasTheHostTellTheAppviewOfWritesTillItEnds(PdsInstance pds) throws Exception {
    Account owner = pds.createAccount("snho");
    Account runner = pds.createAccount("snhr");
    Account stranger = pds.createAccount("snhs");
    Moving clock = new Moving();
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl(), clock);
        HarnessAppview appview = HarnessAppview.startHearingSpaces(pds.pdsUrl(), pds.plcUrl())) {
      assertTrue(appview.did().startsWith("did:plc:"), appview.did());
      assertTrue(host.did().startsWith("did:plc:"), host.did());
      appview.hearSpacesFrom(host.did());
      XrpcClient runnerPds = login(pds, runner);
      XrpcClient ownerPds = login(pds, owner);
      SpaceClient o =
          new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      SpaceClient r = new XrpcSpaceClient(XrpcClient.create(host.url()), runnerPds, clock);
      SpaceClient s =
          new XrpcSpaceClient(
              XrpcClient.create(host.url()), login(pds, stranger), Clock.systemUTC());
      SpaceId space = o.createSpace("box");
      o.addMember(space, runner.did());
      // The appview passes a space's writes only to runners its owner invited.
      String invite = "dev.knotless.inviteRunner";
      XrpcClient.create(appview.url())
          .procedureWith(
              ownerPds.serviceToken(appview.did(), invite),
              invite,
              Json.object().put("runner", runner.did()).put("did", owner.did()).put("name", "box"));
      String service = appview.did() + "#knotless_appview";

      XrpcException refused =
          assertThrows(XrpcException.class, () -> s.registerNotify(space, service));
      assertTrue(SpaceErrors.notMember(refused), refused.getMessage());
      XrpcException notAService =
          assertThrows(XrpcException.class, () -> r.registerNotify(space, "https://example.test"));
      assertEquals(400, notAService.status());

      Instant until = r.registerNotify(space, service);
      Duration kept = Duration.between(clock.instant(), until);
      assertTrue(kept.compareTo(Duration.ofHours(23)) > 0, "kept a day: " + kept);
      assertTrue(kept.compareTo(Duration.ofHours(25)) < 0, "kept a day: " + kept);
      // A service the appview's document does not name is never told.
      r.registerNotify(space, appview.did() + "#elsewhere");

      XrpcClient av = XrpcClient.create(appview.url());
      JsonNode start = await(av, runnerPds, appview, null);
      assertTrue(start.path("missed").asBoolean(), "the first answer says writes may be missed");
      o.applyWrites(space, List.of(Write.create("dev.knotless.repo", "box", Json.object())));
      JsonNode heard = await(av, runnerPds, appview, start.path("cursor").asText());
      assertEquals(1, heard.path("writes").size(), heard.toString());
      assertEquals(space.toString(), heard.path("writes").get(0).path("space").asText());
      assertEquals(owner.did(), heard.path("writes").get(0).path("repo").asText());
      assertFalse(heard.path("missed").asBoolean());
      assertEquals(1, host.notifications()[1], "#elsewhere was not told");

      // A notification not signed by the host is refused, and logged, and passes nothing on:
      // none signed, and one a stranger signed for the method with the key of a DID of its own.
      String notify = "com.atproto.space.notifyWrite";
      var body =
          Json.object().put("space", space.toString()).put("repo", owner.did()).put("rev", "9");
      body.putArray("for").add(runner.did());
      PlcIdentity.Signing forger =
          PlcIdentity.createSigning(
              pds.plcUrl(),
              "atproto_pds",
              "AtprotoPersonalDataServer",
              java.net.URI.create("http://127.0.0.1:9"));
      java.io.PrintStream err = System.err;
      var logged = new java.io.ByteArrayOutputStream();
      System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
      try {
        XrpcException unsigned =
            assertThrows(XrpcException.class, () -> av.procedure(notify, body));
        assertEquals(401, unsigned.status());
        XrpcException forged =
            assertThrows(
                XrpcException.class,
                () -> av.procedureWith(forger.serviceToken(appview.did(), notify), notify, body));
        assertEquals(403, forged.status());
      } finally {
        System.setErr(err);
      }
      String log = logged.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(
          log.contains("refused a notifyWrite of " + space + ": a service token is required"), log);
      assertTrue(
          log.contains(
              "refused a notifyWrite of "
                  + space
                  + ": signed by "
                  + forger.did()
                  + ", not a space host this appview hears"),
          log);
      assertEquals(2, appview.refusedNotifications().size());
      // (The await after the asks end hears exactly one write: neither of these.)

      // A day on, the asks have ended: the owner's next write is not passed on.
      clock.ahead = Duration.ofDays(1);
      int told = host.notifications()[0];
      o.applyWrites(space, List.of(Write.create("dev.knotless.ref", "x", Json.object())));
      // Made again, the ask holds: the write after is passed on, and only that one.
      r.registerNotify(space, service);
      o.applyWrites(space, List.of(Write.create("dev.knotless.ref", "y", Json.object())));
      JsonNode later = await(av, runnerPds, appview, heard.path("cursor").asText());
      assertEquals(1, later.path("writes").size(), later.toString());
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (host.notifications()[0] < told + 1 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(told + 1, host.notifications()[0], "x, after the asks ended, was not told");
      assertEquals(1, host.notifications()[1], "the ended #elsewhere ask was not tried");
    }
  }

  private static JsonNode await(XrpcClient av, XrpcClient self, HarnessAppview a, String cursor)
      throws Exception {
    Map<String, String> p = new HashMap<>();
    p.put("cursor", cursor);
    return av.queryWith(
        self.serviceToken(a.did(), SpaceWriteRelay.AWAIT), SpaceWriteRelay.AWAIT, p);
  }
}
