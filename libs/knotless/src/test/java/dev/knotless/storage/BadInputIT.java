package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.knotless.atproto.Write;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithPds
class BadInputIT {

  @Test
  void malformedUrlsAreRefusedNamingWhatIsWrong(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    GitUser me = new GitUser(pds, null, tmp.resolve("home"));
    String noName = me.fails(tmp, "clone", "knotless://alice.test", "x");
    assertTrue(noName.contains("knotless://<handle or did>/<name>"), noName);
    String badName = me.fails(tmp, "clone", "knotless://alice.test/a%20b", "y");
    assertTrue(badName.contains("repository name"), badName);
    String badOwner = me.fails(tmp, "clone", "knotless://not_a_handle/repo", "z");
    assertTrue(badOwner.contains("neither a handle nor a DID"), badOwner);
  }

  @Test
  void badPathsAndRefNamesWriteNothing(PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("bad");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    String url = "knotless://" + owner.handle() + "/careful";
    me.ok(a, "push", "-q", url, "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("careful");
    Snapshot before = f.reader().read(repo, SnapshotReader.Packs.PAGE);
    Path file = Files.writeString(tmp.resolve("payload"), "x\n");
    for (String path :
        List.of("../evil", "docs/../../x", ".git/config", "sub/.GIT/hooks", "/abs")) {
      GitUser.Run r =
          me.tool(
              ctx ->
                  dev.knotless.storage.cli.CommitCommand.run(
                      new dev.knotless.storage.cli.CommitCommand.Options(
                          url,
                          "main",
                          "m",
                          List.of(path + "=" + file),
                          List.of(),
                          List.of(),
                          null,
                          0,
                          null),
                      ctx));
      assertTrue(r.exit() != 0, path);
      assertTrue(r.err().contains("path"), r.err());
    }
    assertThrows(
        IllegalArgumentException.class, () -> new RefUpdate("refs/heads/a..b", null, true));
    Snapshot after = f.reader().read(repo, SnapshotReader.Packs.PAGE);
    assertEquals(before.liveRefs(), after.liveRefs());
    assertEquals(before.newestPacks().size(), after.newestPacks().size());
  }

  @Test
  void aRecordThatDoesNotParseFailsTheReadNamingItsUri(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("broken");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    String url = "knotless://" + owner.handle() + "/broken";
    me.ok(a, "push", "-q", url, "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    String key = f.reader().read(f.repo("broken"), SnapshotReader.Packs.NONE).repo().key();
    String rkey = Keys.ref(key, "refs/heads/junk");
    f.client.applyWrites(
        owner.did(),
        List.of(
            Write.create(
                Lexicons.REF,
                rkey,
                JsonNodeFactory.instance
                    .objectNode()
                    .put("name", "refs/heads/junk")
                    .put("generation", "many")
                    .put("createdAt", "2026-01-01T00:00:00Z"))));
    String out = me.fails(a, "ls-remote", url);
    assertTrue(out.contains("at://" + owner.did() + "/dev.knotless.ref/" + rkey), out);
    assertTrue(out.contains("generation"), out);
  }

  @Test
  void aRefRecordWhoseNameGitWouldRefuseFailsTheReadNamingIt(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("hostile");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    String url = "knotless://" + owner.handle() + "/hostile";
    me.ok(a, "push", "-q", url, "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    String key = f.reader().read(f.repo("hostile"), SnapshotReader.Packs.NONE).repo().key();
    String bad = "refs/heads/x\n==> deploy";
    String rkey = Keys.ref(key, "refs/heads/x");
    f.client.applyWrites(
        owner.did(),
        List.of(
            Write.create(
                Lexicons.REF,
                rkey,
                JsonNodeFactory.instance
                    .objectNode()
                    .put("name", bad)
                    .put("target", "0123456789abcdef0123456789abcdef01234567")
                    .put("generation", 1)
                    .put("createdAt", "2026-01-01T00:00:00Z"))));
    String out = me.fails(a, "ls-remote", url);
    assertTrue(out.contains("at://" + owner.did() + "/dev.knotless.ref/" + rkey), out);
    assertTrue(out.contains("field 'name': invalid ref name"), out);
    assertTrue(out.contains("refs/heads/x\\n==> deploy"), "the newline is shown escaped: " + out);
  }
}
