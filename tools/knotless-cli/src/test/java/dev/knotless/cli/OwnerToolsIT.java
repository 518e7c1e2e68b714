package dev.knotless.cli;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.ToolRun;
import dev.knotless.testing.infra.ToolRun.Ran;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code knotless runners} and {@code knotless checks} against the real reference PDS. */
@WithPds
class OwnerToolsIT {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private static Ran knotless(Map<String, String> env, String... argv) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(argv), ctx));
  }

  /** Writes a repository record holding a field no knotless version knows, and returns its key. */
  private static String repoRecord(XrpcClient owner, String name, List<String> runners)
      throws Exception {
    String key = Tid.next();
    ObjectNode v = JSON.objectNode();
    v.put("$type", "dev.knotless.repo");
    v.put("key", key);
    v.put("defaultBranch", "main");
    v.put("createdAt", "2026-11-29T10:00:00.000Z");
    runners.forEach(v.putArray("runners")::add);
    v.putObject("fromTheFuture").put("colour", "teal").putArray("tags").add("kept");
    owner.putRecord(owner.did(), "dev.knotless.repo", name, v, Swap.none());
    return key;
  }

  private static JsonNode readRecord(PdsInstance pds, Account owner, String name) throws Exception {
    return XrpcClient.create(pds.pdsUrl())
        .getRecord(owner.did(), "dev.knotless.repo", name)
        .value();
  }

  private static List<String> runnersOf(JsonNode record) {
    List<String> out = new java.util.ArrayList<>();
    record.path("runners").forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void createMakesAnEmptyRepositoryNamingTheRunnersAskedForAndRefusesOneThatExists(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("maker");
    Account runner = pds.createAccount("runc");
    Account other = pds.createAccount("rund");
    Map<String, String> env = env(pds, owner, tmp);

    Ran two =
        knotless(
            env,
            "create",
            owner.handle() + "/two",
            "--runner",
            runner.did(),
            "--runner",
            other.handle());
    assertEquals(0, two.exit(), two.err());
    assertTrue(two.out().contains("created knotless://" + owner.handle() + "/two"), two.out());
    JsonNode made = readRecord(pds, owner, "two");
    assertEquals(List.of(runner.did(), other.did()), runnersOf(made));
    assertEquals("main", made.path("defaultBranch").asText());
    assertTrue(Tid.isValid(made.path("key").asText()), made.toString());

    // Without --runner, what a first push names: here KNOTLESS_RUNNER's.
    Map<String, String> withDefault = new HashMap<>(env);
    withDefault.put("KNOTLESS_RUNNER", runner.did());
    Ran dflt = knotless(withDefault, "create", owner.handle() + "/dflt");
    assertEquals(0, dflt.exit(), dflt.err());
    assertEquals(List.of(runner.did()), runnersOf(readRecord(pds, owner, "dflt")));

    Ran none = knotless(withDefault, "create", owner.handle() + "/none", "--no-runner");
    assertEquals(0, none.exit(), none.err());
    assertTrue(none.out().contains("names no runner"), none.out());
    assertFalse(readRecord(pds, owner, "none").has("runners"));

    // One already there is left as it is.
    Ran again = knotless(env, "create", owner.handle() + "/two", "--no-runner");
    assertEquals(1, again.exit(), again.out());
    assertTrue(again.err().contains("already exists"), again.err());
    assertEquals(made, readRecord(pds, owner, "two"));

    Ran both =
        knotless(env, "create", owner.handle() + "/x", "--no-runner", "--runner", other.did());
    assertEquals(1, both.exit(), both.out());
    assertTrue(both.err().contains("--runner and --no-runner"), both.err());
  }

  @Test
  void addRemoveAndListEditOnlyTheRunnersAndKeepFieldsTheyDoNotKnow(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("tools");
    Account runner = pds.createAccount("runa");
    Account other = pds.createAccount("runb");
    XrpcClient client = XrpcClient.create(pds.pdsUrl());
    client.login(owner.handle(), owner.password());
    repoRecord(client, "site", List.of(other.did()));
    Map<String, String> env = env(pds, owner, tmp);
    String url = "knotless://" + owner.handle() + "/site";

    Ran added = knotless(env, "runners", url, "add", runner.did());
    assertEquals(0, added.exit(), added.err());
    assertTrue(added.out().contains("added " + runner.did()), added.out());
    JsonNode after = readRecord(pds, owner, "site");
    assertEquals(List.of(other.did(), runner.did()), runnersOf(after));
    assertEquals("teal", after.path("fromTheFuture").path("colour").asText());
    assertEquals("kept", after.path("fromTheFuture").path("tags").path(0).asText());
    assertEquals("main", after.path("defaultBranch").asText());

    Ran again = knotless(env, "runners", url, "add", runner.did());
    assertEquals(0, again.exit(), again.err());
    assertTrue(again.out().contains("already"), again.out());
    assertEquals(2, runnersOf(readRecord(pds, owner, "site")).size());

    // The plain <handle>/<name> form, and a runner named by its handle.
    Ran removed = knotless(env, "runners", owner.handle() + "/site", "remove", other.handle());
    assertEquals(0, removed.exit(), removed.err());
    JsonNode last = readRecord(pds, owner, "site");
    assertEquals(List.of(runner.did()), runnersOf(last));
    assertEquals("teal", last.path("fromTheFuture").path("colour").asText());

    Ran listed = knotless(env(pds, null, tmp.resolve("reader")), "runners", url, "list");
    assertEquals(0, listed.exit(), listed.err());
    assertEquals(runner.did(), listed.out().strip());
  }

  @Test
  void anEditByAnotherAccountOrOfAMissingRepositoryFailsSayingWhy(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("toolo");
    Account stranger = pds.createAccount("strng");
    XrpcClient client = XrpcClient.create(pds.pdsUrl());
    client.login(owner.handle(), owner.password());
    repoRecord(client, "app", List.of());

    Ran notOwner =
        knotless(
            env(pds, stranger, tmp), "runners", owner.handle() + "/app", "add", stranger.did());
    assertEquals(1, notOwner.exit());
    assertTrue(notOwner.err().contains("only the owner"), notOwner.err());
    assertTrue(runnersOf(readRecord(pds, owner, "app")).isEmpty());

    Ran missing = knotless(env(pds, owner, tmp), "runners", owner.handle() + "/nope", "list");
    assertEquals(1, missing.exit());
    assertTrue(missing.err().contains("no repository nope"), missing.err());

    Ran bad = knotless(env(pds, owner, tmp), "runners", "just-a-name", "list");
    assertEquals(2, bad.exit());
    assertTrue(bad.err().contains("just-a-name"), bad.err());
  }

  @Test
  void checksListsOnlyTheNamedRunnersChecksAndNarrowsToOneRef(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("chk");
    Account runner = pds.createAccount("chkr");
    Account forger = pds.createAccount("chkf");
    XrpcClient ownerClient = XrpcClient.create(pds.pdsUrl());
    ownerClient.login(owner.handle(), owner.password());
    String key = repoRecord(ownerClient, "web", List.of(runner.did()));
    String main = "1".repeat(40);
    String feature = "2".repeat(40);
    XrpcClient runnerClient = XrpcClient.create(pds.pdsUrl());
    runnerClient.login(runner.handle(), runner.password());
    check(runnerClient, owner.did(), key, "refs/heads/main", main, "test", "success", null);
    check(runnerClient, owner.did(), key, "refs/heads/main", main, "lint", "failure", "step x");
    check(runnerClient, owner.did(), key, "refs/heads/topic", feature, "test", "running", null);
    // Another repository of the same owner, and a forged check by an account not named.
    check(
        runnerClient,
        owner.did(),
        Tid.next(),
        "refs/heads/main",
        main,
        "elsewhere",
        "success",
        null);
    XrpcClient forgerClient = XrpcClient.create(pds.pdsUrl());
    forgerClient.login(forger.handle(), forger.password());
    check(forgerClient, owner.did(), key, "refs/heads/main", main, "forged", "success", null);

    Map<String, String> env = env(pds, null, tmp);
    Ran all = knotless(env, "checks", "knotless://" + owner.handle() + "/web");
    assertEquals(0, all.exit(), all.err());
    List<String> lines = all.out().strip().lines().toList();
    assertEquals(4, lines.size(), all.out());
    assertTrue(lines.get(0).startsWith("CHECK"), all.out());
    assertTrue(all.out().contains("refs/heads/topic"), all.out());
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.contains(" lint ")
                        && l.contains(main.substring(0, 12))
                        && l.contains("failure")
                        && l.endsWith("step x")),
        all.out());
    assertFalse(all.out().contains("forged"), all.out());
    assertFalse(all.out().contains("elsewhere"), all.out());

    Ran onMain = knotless(env, "checks", owner.did() + "/web", "--ref", "main");
    assertEquals(0, onMain.exit(), onMain.err());
    assertEquals(3, onMain.out().strip().lines().count(), onMain.out());
    assertFalse(onMain.out().contains("refs/heads/topic"), onMain.out());
  }

  private static void check(
      XrpcClient as,
      String ownerDid,
      String repoKey,
      String ref,
      String commit,
      String workflow,
      String status,
      String note)
      throws Exception {
    String rkey =
        Hashes.h(ownerDid) + "." + repoKey + "." + Hashes.h(ref) + "." + commit + "." + workflow;
    ObjectNode v = JSON.objectNode();
    v.put("$type", "dev.knotless.check");
    v.put("repo", "at://" + ownerDid + "/dev.knotless.repo/web");
    v.put("ref", ref);
    v.put("commit", commit);
    v.put("workflow", workflow);
    v.put("status", status);
    v.put("createdAt", "2026-11-29T10:00:00.000Z");
    v.putArray("steps");
    if (note != null) {
      v.put("note", note);
    }
    as.putRecord(as.did(), "dev.knotless.check", rkey, v, Swap.none());
  }
}
