package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Json;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.storage.cli.LoginCommand;
import dev.knotless.testing.Account;
import dev.knotless.testing.ConsentBrowser;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user logs in with OAuth (a real chromium on the PDS's own pages) and pushes with plain
 * {@code git push knotless://...}: the git helper, a process of its own, writes on the saved OAuth
 * session, with no password anywhere in its environment.
 */
@WithPds
class OAuthPushIT {
  static ConsentBrowser browser;

  @BeforeAll
  static void start() {
    browser = ConsentBrowser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void aPushAfterAnOAuthLoginLandsWithNoPassword(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("opush");
    GitUser me = new GitUser(pds, null, tmp.resolve("me"));
    String url = "knotless://" + owner.handle() + "/site";
    Path a = me.newRepo(tmp.resolve("a"), "README.md", "hello\n");

    ConsentBrowser.AddressWatch err = new ConsentBrowser.AddressWatch();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<Integer> exit =
        pool.submit(
            () ->
                LoginCommand.run(
                    owner.handle(),
                    new CliContext(
                        me.env(),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        () -> KnotlessRepos.fromEnvironment(me.env()))));
    browser.consent(err.await(Duration.ofSeconds(60)), owner.password(), "http://127.0.0.1:");
    assertEquals(0, exit.get().intValue(), out + err.text());
    pool.shutdown();
    assertTrue(
        out.toString(StandardCharsets.UTF_8).contains("with an OAuth session"), out.toString());
    assertEquals(
        "oauth",
        Json.read(Files.readAllBytes(tmp.resolve("me/config/sessions.json")))
            .path(owner.did())
            .path("kind")
            .asText());

    me.ok(a, "push", url, "main");
    Path b = tmp.resolve("b");
    me.ok(tmp, "clone", "-q", url, b.toString());
    assertEquals("hello\n", Files.readString(b.resolve("README.md")));
  }
}
