package dev.knotless.testing.infra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRepos;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The harness's space host with accounts of the reference PDS proving themselves by its service
 * tokens, through the product's space client: membership is checked on every call (a credential
 * does not outlive it), writes go only to the caller's own repo, listRepos counts from a cursor,
 * and deleting a space takes everything in it.
 */
@WithPds
class HarnessSpaceHostIT {

  private static SpaceClient as(PdsInstance pds, HarnessSpaceHost host, Account a)
      throws Exception {
    XrpcClient self = HarnessOAuth.client(pds, a);
    return new XrpcSpaceClient(XrpcClient.create(host.url()), self, Clock.systemUTC());
  }

  @Test
  void membersReadAndWriteTheirOwnAndAMemberRemovedIsRefusedWithTheCredentialItHolds(
      PdsInstance pds) throws Exception {
    Account owner = pds.createAccount("spho");
    Account member = pds.createAccount("sphm");
    Account stranger = pds.createAccount("sphs");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl())) {
      SpaceClient o = as(pds, host, owner);
      SpaceClient m = as(pds, host, member);
      SpaceClient s = as(pds, host, stranger);
      SpaceId space = o.createSpace("box");
      XrpcException twice = assertThrows(XrpcException.class, () -> o.createSpace("box"));
      assertEquals("SpaceAlreadyExists", twice.error());

      assertEquals(List.of(space), o.ownedSpaces());
      assertEquals(List.of(), m.ownedSpaces());
      o.applyWrites(space, List.of(Write.create("dev.knotless.repo", "box", Json.object())));
      SpaceRepos first = o.listRepos(space, null);
      assertEquals(List.of(owner.did()), first.repos().stream().map(SpaceRepos.Repo::did).toList());

      XrpcException refused =
          assertThrows(
              XrpcException.class,
              () -> s.getRecord(space, owner.did(), "dev.knotless.repo", "box"));
      assertTrue(SpaceErrors.notMember(refused), refused.getMessage());
      // Only the owner manages the space.
      assertThrows(XrpcException.class, () -> s.addMember(space, stranger.did()));

      o.addMember(space, member.did());
      assertTrue(m.getRecord(space, owner.did(), "dev.knotless.repo", "box").isPresent());
      m.putRecord(space, "dev.knotless.check", "c1", Json.object().put("status", "success"));
      BlobRef blob = m.uploadBlob(space, new byte[] {1, 2, 3}, "application/octet-stream");
      assertArrayEquals(
          new byte[] {1, 2, 3}, o.getBlob(space, member.did(), blob.cid(), blob.size()));
      // A member writes only its own repo.
      assertThrows(
          IllegalArgumentException.class,
          () ->
              new dev.knotless.atproto.space.SpaceRecords(m, space, host.url())
                  .applyWrites(owner.did(), List.of()));
      SpaceRepos since = o.listRepos(space, first.cursor());
      assertEquals(
          List.of(member.did()), since.repos().stream().map(SpaceRepos.Repo::did).toList());
      assertEquals(List.of(), o.listRepos(space, since.cursor()).repos());

      o.removeMember(space, member.did());
      XrpcException gone =
          assertThrows(
              XrpcException.class,
              () -> m.getRecord(space, owner.did(), "dev.knotless.repo", "box"));
      assertTrue(SpaceErrors.notMember(gone), gone.getMessage());
      // The member's records stay the space's.
      assertEquals(1, host.records(space.toString(), member.did()));

      o.deleteSpace(space);
      assertFalse(host.exists(space.toString()));
      XrpcException deleted =
          assertThrows(
              XrpcException.class,
              () -> o.getRecord(space, owner.did(), "dev.knotless.repo", "box"));
      assertTrue(SpaceErrors.spaceNotFound(deleted), deleted.getMessage());
      SpaceId again = o.createSpace("box");
      assertEquals(List.of(), o.listRepos(again, null).repos(), "nothing of the deleted space");
    }
  }
}
