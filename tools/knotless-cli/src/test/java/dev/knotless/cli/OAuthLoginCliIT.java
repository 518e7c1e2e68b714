package dev.knotless.cli;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.oauth.OAuthSession;
import dev.knotless.atproto.oauth.OAuthTokens;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.ConsentBrowser;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.ToolRun;
import dev.knotless.testing.infra.ToolRun.Ran;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless login} with OAuth, as a person runs it: the command prints the PDS's page, a real
 * chromium signs in and allows knotless there, and the commands after it work on that session
 * alone, no password anywhere in their environment; {@code knotless logout} ends it at the PDS.
 */
class OAuthLoginCliIT {
  static PdsInstance pds;
  static ConsentBrowser browser;

  @BeforeAll
  static void start() {
    pds = PdsInstance.start(PdsOptions.defaults(), Map.of("PROBE_OAUTH_TOKEN_SECONDS", "20"));
    browser = ConsentBrowser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (pds != null) {
      pds.close();
    }
  }

  private static Ran knotless(Map<String, String> env, String... argv) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(argv), ctx));
  }

  /** {@code knotless login <handle>} with the browser doing the person's part. */
  static Ran login(Map<String, String> env, Account a) throws Exception {
    ConsentBrowser.AddressWatch err = new ConsentBrowser.AddressWatch();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Integer> exit =
          pool.submit(
              () ->
                  KnotlessCli.run(
                      List.of("login", a.handle()),
                      new CliContext(
                          env,
                          new PrintStream(out, true, StandardCharsets.UTF_8),
                          new PrintStream(err, true, StandardCharsets.UTF_8),
                          () -> KnotlessRepos.fromEnvironment(env))));
      browser.consent(err.await(Duration.ofSeconds(60)), a.password(), "http://127.0.0.1:");
      return new Ran(exit.get(), out.toString(StandardCharsets.UTF_8), err.text());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anOwnerLogsInThroughTheBrowserAndWritesWithNoPasswordThenLogsOut(@TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("oown");
    Account runner = pds.createAccount("orun");
    Map<String, String> env = env(pds, null, tmp);

    Ran in = login(env, owner);
    assertEquals(0, in.exit(), in.all());
    assertTrue(in.out().contains("with an OAuth session"), in.all());
    assertTrue(in.err().contains("/oauth/authorize?"), "the page to open is printed: " + in.err());
    Path file = tmp.resolve("config/sessions.json");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    JsonNode saved = Json.read(Files.readAllBytes(file)).path(owner.did());
    assertEquals("oauth", saved.path("kind").asText(), "saved as an OAuth session");
    assertFalse(saved.has("accessJwt"), "no app-password session beside it");

    Ran made = knotless(env, "create", owner.handle() + "/site", "--no-runner");
    assertEquals(0, made.exit(), made.all());
    Ran added =
        knotless(env, "runners", "knotless://" + owner.handle() + "/site", "add", runner.did());
    assertEquals(0, added.exit(), added.all());
    JsonNode record =
        XrpcClient.create(pds.pdsUrl()).getRecord(owner.did(), "dev.knotless.repo", "site").value();
    assertEquals(runner.did(), record.path("runners").path(0).asText(), record.toString());

    // The session as logout finds it (refreshed or not), to try its tokens afterwards.
    OAuthSession before =
        OAuthSession.fromJson(Json.read(Files.readAllBytes(file)).path(owner.did()));
    Ran out = knotless(env, "logout");
    assertEquals(0, out.exit(), out.all());
    assertTrue(out.out().contains("revoked"), out.all());
    assertTrue(Json.read(Files.readAllBytes(file)).path(owner.did()).isMissingNode());
    XrpcClient old = XrpcClient.create(before.pds());
    old.resume(
        new OAuthTokens(
            before,
            dev.knotless.atproto.oauth.OAuthClient.fromEnvironment(env),
            Clock.systemUTC(),
            Optional::empty,
            s -> {}));
    XrpcException refused =
        assertThrows(
            XrpcException.class,
            () ->
                old.putRecord(
                    owner.did(),
                    "dev.knotless.ref",
                    "x",
                    Json.object().put("name", "x"),
                    Swap.none()));
    assertEquals(XrpcException.Kind.AUTH, refused.kind(), refused.getMessage());

    Ran after = knotless(env, "create", owner.handle() + "/other", "--no-runner");
    assertEquals(1, after.exit(), after.all());
    assertTrue(after.err().contains("knotless login"), after.all());
  }

  @Test
  void anAppPasswordStillLogsInAndSaysSo(@TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("opass");
    Map<String, String> env = env(pds, owner, tmp);
    Ran in = knotless(env, "login", owner.handle());
    assertEquals(0, in.exit(), in.all());
    assertTrue(in.out().contains("with an app password"), in.all());
  }

  @Test
  void aSavedSessionGrantedLessThanKnotlessNeedsIsToldToLogInAgain(@TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("onarrow");
    Map<String, String> env = env(pds, null, tmp);
    // A session from a knotless that asked for fewer collections, saved where knotless login
    // saves them.
    dev.knotless.atproto.oauth.OAuthClient client =
        dev.knotless.atproto.oauth.OAuthClient.fromEnvironment(env);
    OAuthSession narrow;
    try (dev.knotless.atproto.oauth.LoopbackRedirect redirect =
        dev.knotless.atproto.oauth.LoopbackRedirect.start()) {
      dev.knotless.atproto.identity.Identity id =
          dev.knotless.atproto.identity.IdentityResolver.fromEnvironment(
                  env,
                  dev.knotless.atproto.cache.LocalCache.fromEnvironment(env, Clock.systemUTC()))
              .resolve(owner.handle());
      var p = client.begin(id, redirect.uri(), "atproto repo:dev.knotless.repo");
      browser.consent(p.authorizeUrl(), owner.password(), redirect.uri().toString());
      narrow = client.complete(p, redirect.await(Duration.ofSeconds(30)));
    }
    dev.knotless.atproto.cache.SessionStore.fromEnvironment(env)
        .writeLogin(narrow.did(), narrow.toJson());

    Ran made = knotless(env, "create", owner.handle() + "/site", "--no-runner");
    assertEquals(1, made.exit(), made.all());
    assertTrue(made.err().contains("log in again (knotless login)"), made.all());
    assertTrue(made.err().contains("repo:dev.knotless.ref"), made.all());
  }
}
