package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.storage.cli.DeleteCommand;
import dev.knotless.storage.cli.RenameCommand;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless repo rename} and {@code knotless repo delete} against the real reference PDS,
 * with plain git through the remote helper: the old name keeps working for push and clone, every
 * former name is one hop from the current one, and a delete leaves nothing keyed by the repository.
 */
@WithPds
class RenameAndDeleteIT {

  private static String run(GitUser me, Op op) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    Map<String, String> env = me.env();
    int exit = op.run(new CliContext(env, print, print, () -> KnotlessRepos.fromEnvironment(env)));
    assertEquals(0, exit, out.toString(StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  interface Op {
    int run(CliContext ctx) throws Exception;
  }

  /** Former name to the name it redirects to, for every redirect in the account. */
  private static Map<String, String> redirects(XrpcClient anyone, String did) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (Record r : anyone.listRecords(did, Lexicons.REDIRECT, 100, null, false).records()) {
      String target = r.value().path("repo").asText();
      out.put(r.rkey(), target.substring(target.lastIndexOf('/') + 1));
    }
    return out;
  }

  @Test
  void aRenamedRepositoryIsPushedAndClonedThroughItsOldNamesAndADeleteLeavesNothingOfIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("renm");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    XrpcClient anyone = XrpcClient.create(pds.pdsUrl());
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    String before = "knotless://" + owner.handle() + "/before";
    me.ok(a, "remote", "add", "origin", before);
    me.ok(a, "push", "-q", "origin", "main");
    JsonNode first = anyone.getRecord(owner.did(), Lexicons.REPO, "before").value();
    String key = first.path("key").asText();

    String said = run(me, ctx -> RenameCommand.run(before, "after", ctx));
    assertTrue(said.startsWith("renamed " + before + " to knotless://"), said);
    JsonNode moved = anyone.getRecord(owner.did(), Lexicons.REPO, "after").value();
    assertEquals(key, moved.path("key").asText());
    assertEquals(first.path("runners"), moved.path("runners"));
    assertFalse(anyone.findRecord(owner.did(), Lexicons.REPO, "before").isPresent());
    assertEquals(Map.of("before", "after"), redirects(anyone, owner.did()));

    // Push and clone through the old name.
    String tip = me.commit(a, "b.txt", "b\n");
    me.ok(a, "push", "-q", "origin", "main");
    me.ok(tmp, "clone", "-q", before, "viaOld");
    assertEquals(tip, me.ok(tmp.resolve("viaOld"), "rev-parse", "HEAD").strip());

    // A second rename repoints the first redirect: each former name is one hop away.
    run(me, ctx -> RenameCommand.run(owner.handle() + "/after", "third", ctx));
    assertEquals(Map.of("after", "third", "before", "third"), redirects(anyone, owner.did()));
    me.ok(tmp, "clone", "-q", before, "viaOldest");
    assertEquals(tip, me.ok(tmp.resolve("viaOldest"), "rev-parse", "HEAD").strip());

    // Taking a former name back replaces its redirect.
    run(me, ctx -> RenameCommand.run(owner.handle() + "/third", "before", ctx));
    assertEquals(Map.of("after", "before", "third", "before"), redirects(anyone, owner.did()));
    assertEquals(
        key, anyone.getRecord(owner.did(), Lexicons.REPO, "before").value().path("key").asText());
    String tip2 = me.commit(a, "c.txt", "c\n");
    me.ok(a, "push", "-q", "origin", "main");
    me.ok(tmp, "clone", "-q", "knotless://" + owner.handle() + "/third", "viaThird");
    assertEquals(tip2, me.ok(tmp.resolve("viaThird"), "rev-parse", "HEAD").strip());

    String gone = run(me, ctx -> DeleteCommand.run(before, true, ctx));
    assertTrue(gone.startsWith("deleted " + before), gone);
    for (String c : List.of(Lexicons.REF, Lexicons.CLAIM, Lexicons.PACK, Lexicons.REPO)) {
      assertEquals(List.of(), anyone.listRecords(owner.did(), c, 100, null, false).records(), c);
    }
    assertEquals(Map.of(), redirects(anyone, owner.did()));
    // The name is free again: a clone finds an empty repository, none of the deleted history.
    GitUser.Run clone = me.exec(tmp, "clone", "-q", before, "afterDelete");
    assertEquals(0, clone.exit(), clone.err());
    assertTrue(
        me.exec(tmp.resolve("afterDelete"), "rev-parse", "--verify", "-q", "HEAD").exit() != 0,
        "nothing of the deleted history is cloned");
  }
}
