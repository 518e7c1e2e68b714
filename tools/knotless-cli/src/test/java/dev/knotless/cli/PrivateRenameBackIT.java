package dev.knotless.cli;

import static dev.knotless.cli.PrivateRepositoryIT.commit;
import static dev.knotless.cli.PrivateRepositoryIT.git;
import static dev.knotless.cli.PrivateRepositoryIT.knotless;
import static dev.knotless.cli.PrivateRepositoryIT.ok;
import static dev.knotless.cli.PrivateRepositoryIT.person;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.Lexicons;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.ToolRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A private repository renamed back to a former name that is not the one it was made under, against
 * the reference PDS and the harness's space host: the space that name left behind (its redirect
 * leading to the records' space) is taken back, so the rename succeeds, every name leads to the
 * same repository, and another repository's space of a name is still refused.
 */
@WithPds
class PrivateRenameBackIT {

  @Test
  void renamedBackToAFormerNameItsSpaceIsTakenBackAndEveryNameLeadsThere(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("backown");
    Account member = pds.createAccount("backmem");
    Account stranger = pds.createAccount("backstr");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl())) {
      Map<String, String> me = person(pds, owner, tmp.resolve("owner"), host);
      Map<String, String> them = person(pds, member, tmp.resolve("member"), host);
      Map<String, String> other = person(pds, stranger, tmp.resolve("stranger"), host);
      String h = owner.handle();
      String kept = owner.did() + "/draft";
      assertEquals(
          0, knotless(me, "create", h + "/draft", "--private", "--runner", member.did()).exit());
      Path work = tmp.resolve("work");
      ok(me, work, "init", "-q", "-b", "main");
      commit(me, work, "a.txt", "a\n");
      ok(me, work, "push", "-q", "knotless://" + h + "/draft", "main");

      ToolRun.Ran first = knotless(me, "repo", "rename", h + "/draft", "final");
      assertEquals(0, first.exit(), first.all());
      ToolRun.Ran second = knotless(me, "repo", "rename", h + "/final", "later");
      assertEquals(0, second.exit(), second.all());
      assertTrue(host.exists(owner.did() + "/final"), "the space the first rename made stays");

      // Back to "final": its space is there, leading to the records' space; taken back.
      ToolRun.Ran back = knotless(me, "repo", "rename", h + "/later", "final");
      assertEquals(0, back.exit(), back.all());
      assertTrue(
          back.out()
              .contains(
                  "renamed knotless://"
                      + h
                      + "/later to knotless://"
                      + h
                      + "/final; the old name redirects to it, and its records stay in the space "
                      + kept),
          back.all());
      assertFalse(back.all().contains("already exists"), back.all());

      // The member reads it by its name again, the owner pushes to it, and the other names lead
      // to the same repository.
      ok(them, tmp, "clone", "-q", "knotless://" + h + "/final", "byFinal");
      String pushed = commit(me, work, "b.txt", "b\n");
      ok(me, work, "push", "-q", "knotless://" + h + "/final", "main");
      for (String name : List.of("final", "later", "draft")) {
        ok(them, tmp, "clone", "-q", "knotless://" + h + "/" + name, "again-" + name);
        assertEquals(
            pushed,
            ok(them, tmp.resolve("again-" + name), "rev-parse", "HEAD").strip(),
            "a clone by " + name + " reads the push");
      }
      // Still private by the name taken back: a stranger is refused.
      var refused = git(other, tmp, "clone", "-q", "knotless://" + h + "/final", "strangers");
      assertNotEquals(0, refused.exit());
      assertTrue(refused.err().contains("is private"), refused.err());
      XrpcClient anyone = XrpcClient.create(pds.pdsUrl());
      for (String c : List.of(Lexicons.REPO, Lexicons.REDIRECT, Lexicons.REF)) {
        assertEquals(List.of(), anyone.listRecords(owner.did(), c, 100, null, false).records(), c);
      }

      // Another repository's space is no former name of this one: still refused.
      assertEquals(0, knotless(me, "create", h + "/taken", "--private", "--no-runner").exit());
      ToolRun.Ran taken = knotless(me, "repo", "rename", h + "/final", "taken");
      assertNotEquals(0, taken.exit());
      assertTrue(taken.all().contains("already exists"), taken.all());

      // Deleting it deletes the records' space and every space of its later names.
      ToolRun.Ran gone = knotless(me, "repo", "delete", h + "/final", "--yes");
      assertEquals(0, gone.exit(), gone.all());
      for (String name : List.of("draft", "final", "later")) {
        assertFalse(host.exists(owner.did() + "/" + name), name);
      }
      assertTrue(host.exists(owner.did() + "/taken"));
    }
  }
}
