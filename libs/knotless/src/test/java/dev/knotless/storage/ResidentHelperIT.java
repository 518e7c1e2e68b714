package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.testing.Account;
import dev.knotless.testing.HelperDaemons;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plain git through bin/git-remote-knotless with the resident helper on, as a user has it: the
 * first run starts the daemon, later runs are served by it. Once it is up, every JVM a run would
 * start of its own is made to fail (an option no JVM knows), so a run that succeeds was the
 * daemon's.
 */
@WithPds
class ResidentHelperIT {
  private static final String NO_JVM = "-XX:+KnotlessNoSuchOption";

  @Test
  void pushCloneFetchAndRefusalsBehaveTheSameThroughTheResidentHelper(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Path helpers = tmp.resolve("helpers");
    try {
      Account owner = pds.createAccount("resident");
      GitUser me = resident(new GitUser(pds, owner, tmp.resolve("me")), helpers);
      String url = "knotless://" + owner.handle() + "/project";
      Path a = me.newRepo(tmp.resolve("a"), "README.md", "hello\n");
      me.ok(a, "remote", "add", "origin", url);
      me.ok(a, "push", "-q", "origin", "main");
      awaitDaemon(helpers);

      me.with("KNOTLESS_JAVA_OPTS", NO_JVM);
      GitUser reader =
          resident(new GitUser(pds, null, tmp.resolve("reader")), helpers)
              .with("KNOTLESS_JAVA_OPTS", NO_JVM);
      reader.ok(tmp, "clone", "-q", url, "b");
      Path b = tmp.resolve("b");
      assertEquals("hello\n", Files.readString(b.resolve("README.md")));
      assertEquals("main", reader.ok(b, "branch", "--show-current").strip());

      String second = me.commit(a, "src/one.txt", "one\n");
      me.ok(a, "push", "-q", "origin", "main");
      reader.ok(b, "fetch", "-q", "origin");
      assertEquals(second, reader.ok(b, "rev-parse", "origin/main").strip());

      me.ok(a, "reset", "-q", "--hard", "HEAD~1");
      String rewritten = me.commit(a, "other.txt", "rewritten\n");
      GitUser.Run refused = me.exec(a, "push", "origin", "main");
      assertNotEquals(0, refused.exit());
      assertTrue(refused.err().contains("non-fast-forward"), refused.err());
      me.ok(a, "push", "-q", "--force", "origin", "main");
      assertTrue(me.ok(a, "ls-remote", "origin").contains(rewritten + "\trefs/heads/main"));

      GitUser.Run nobody = reader.exec(tmp, "clone", "knotless://nobody.test/x", "c");
      assertEquals(128, nobody.exit());
      assertTrue(
          nobody.err().contains("fatal: knotless: handle nobody.test does not resolve"),
          nobody.err());
      assertFalse(Files.exists(tmp.resolve("c")));
      assertEquals(1, HelperDaemons.in(helpers).size(), "one daemon served every run");
    } finally {
      HelperDaemons.stopAll(helpers);
    }
  }

  @Test
  void eachRunLogsInWithItsOwnCredentialsNotAnEarlierRunsOnes(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Path helpers = tmp.resolve("helpers");
    try {
      Account owner = pds.createAccount("creds");
      GitUser right = resident(new GitUser(pds, owner, tmp.resolve("right")), helpers);
      Path a = right.newRepo(tmp.resolve("a"), "README.md", "hello\n");
      String url = "knotless://" + owner.handle() + "/mine";
      right.ok(a, "push", "-q", url, "main");
      awaitDaemon(helpers);
      String head = right.ok(a, "rev-parse", "HEAD").strip();

      GitUser wrong =
          resident(new GitUser(pds, owner, tmp.resolve("wrong")), helpers)
              .with("KNOTLESS_PASSWORD", "not-the-password")
              .with("KNOTLESS_JAVA_OPTS", NO_JVM);
      String second = right.commit(a, "two.txt", "two\n");
      GitUser.Run refused = wrong.exec(a, "push", url, "main");
      assertNotEquals(0, refused.exit(), refused.err());
      assertTrue(refused.err().contains("Invalid identifier or password"), refused.err());
      assertTrue(wrong.ok(a, "ls-remote", url).contains(head + "\trefs/heads/main"));

      right.with("KNOTLESS_JAVA_OPTS", NO_JVM);
      right.ok(a, "push", "-q", url, "main");
      assertTrue(right.ok(a, "ls-remote", url).contains(second + "\trefs/heads/main"));
    } finally {
      HelperDaemons.stopAll(helpers);
    }
  }

  private static GitUser resident(GitUser user, Path helpers) {
    return user.with("KNOTLESS_HELPER_DAEMON", "on")
        .with("KNOTLESS_HELPER_DIR", helpers.toString())
        .with("KNOTLESS_HELPER_IDLE", "300");
  }

  /** The first run starts the daemon once it has done its own work; it is up soon after. */
  private static void awaitDaemon(Path helpers) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (HelperDaemons.in(helpers).isEmpty()) {
      if (System.nanoTime() > deadline) {
        fail("no resident helper came up in " + helpers + " within 60 s");
      }
      Thread.sleep(50);
    }
  }
}
