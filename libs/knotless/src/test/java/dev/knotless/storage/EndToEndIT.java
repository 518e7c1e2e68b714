package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plain git against a real PDS through bin/git-remote-knotless. */
@WithPds
class EndToEndIT {

  @Test
  void pushCloneFetchDeleteAndForcePushBehaveAsWithAnyRemote(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("e2e");
    GitUser me = new GitUser(pds, owner, tmp.resolve("me"));
    String url = "knotless://" + owner.handle() + "/project";
    Path a = me.newRepo(tmp.resolve("a"), "README.md", "hello\n");
    me.ok(a, "remote", "add", "origin", url);
    me.ok(a, "push", "-q", "origin", "main");
    assertEquals(owner.did(), me.ok(a, "config", "remote.origin.knotlessdid").strip());

    GitUser reader = new GitUser(pds, null, tmp.resolve("reader"));
    reader.ok(tmp, "clone", "-q", url, "b");
    Path b = tmp.resolve("b");
    assertEquals("hello\n", Files.readString(b.resolve("README.md")));
    assertEquals("main", reader.ok(b, "branch", "--show-current").strip());

    String second = me.commit(a, "src/one.txt", "one\n");
    me.ok(a, "checkout", "-q", "-b", "feature");
    String feature = me.commit(a, "feature.txt", "feature\n");
    me.ok(a, "push", "-q", "origin", "main", "feature");
    reader.ok(b, "fetch", "-q", "origin");
    assertEquals(second, reader.ok(b, "rev-parse", "origin/main").strip());
    assertEquals(feature, reader.ok(b, "rev-parse", "origin/feature").strip());
    reader.ok(b, "merge", "-q", "--ff-only", "origin/main");
    assertEquals("one\n", Files.readString(b.resolve("src/one.txt")));

    me.ok(a, "push", "-q", "origin", "--delete", "feature");
    reader.ok(b, "fetch", "-q", "--prune", "origin");
    assertFalse(reader.ok(b, "branch", "-r").contains("origin/feature"));
    assertFalse(me.ok(a, "ls-remote", "origin").contains("refs/heads/feature"));

    me.ok(a, "checkout", "-q", "main");
    me.ok(a, "reset", "-q", "--hard", "HEAD~1");
    String rewritten = me.commit(a, "other.txt", "rewritten\n");
    String refused = me.fails(a, "push", "origin", "main");
    assertTrue(refused.contains("non-fast-forward") || refused.contains("rejected"), refused);
    me.ok(a, "push", "-q", "--force", "origin", "main");
    reader.ok(b, "fetch", "-q", "origin");
    assertEquals(rewritten, reader.ok(b, "rev-parse", "origin/main").strip());

    reader.ok(tmp, "clone", "-q", url, "c");
    assertEquals(rewritten, reader.ok(tmp.resolve("c"), "rev-parse", "HEAD").strip());
    assertEquals("rewritten\n", Files.readString(tmp.resolve("c/other.txt")));
  }

  @Test
  void knotlessLoginSavesASessionThatGitPushesWithAndNoPasswordIsKept(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("login");
    GitUser me = new GitUser(pds, null, tmp.resolve("me"));
    String url = "knotless://" + owner.handle() + "/logged";
    Path a = me.newRepo(tmp.resolve("a"), "README.md", "hello\n");

    String refused = me.fails(a, "push", url, "main");
    assertTrue(refused.contains("knotless login"), refused);

    me.with("KNOTLESS_PASSWORD", owner.password());
    GitUser.Run login =
        me.tool(ctx -> dev.knotless.storage.cli.LoginCommand.run(owner.handle(), ctx));
    assertEquals(0, login.exit(), login.err());
    String said = login.out() + login.err();
    assertTrue(said.contains("logged in as " + owner.handle()), said);
    me.without("KNOTLESS_PASSWORD");

    me.ok(a, "push", url, "main");
    Path b = tmp.resolve("b");
    me.ok(tmp, "clone", "-q", url, b.toString());
    assertEquals("hello\n", Files.readString(b.resolve("README.md")));
    try (var files = Files.walk(tmp.resolve("me"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertFalse(
            new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains(owner.password()),
            "the app password is kept nowhere: " + f);
      }
    }
  }

  @Test
  void anUnforcedPushOverCommitsThePusherNeverSawIsToldFetchFirst(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ff");
    // The default: a landed push starts a due compaction, detached, which git must not wait on.
    GitUser me = new GitUser(pds, owner, tmp.resolve("me")).with("KNOTLESS_COMPACT", "background");
    String url = "knotless://" + owner.handle() + "/race";
    Path a = me.newRepo(tmp.resolve("a"), "f.txt", "a\n");
    me.ok(a, "push", "-q", url, "main");
    me.ok(tmp, "clone", "-q", url, "b");
    me.commit(tmp.resolve("b"), "g.txt", "b\n");
    me.ok(tmp.resolve("b"), "push", "-q", "origin", "main");
    me.commit(a, "h.txt", "a2\n");
    String out = me.fails(a, "push", url, "main");
    assertTrue(out.contains("fetch first"), out);
  }
}
