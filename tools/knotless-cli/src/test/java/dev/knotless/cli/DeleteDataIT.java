package dev.knotless.cli;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.cli.account.DataDeleter;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code knotless account delete-data} against the reference PDS. */
@WithPds
class DeleteDataIT {
  record Ran(int exit, String out, String err) {}

  static Ran knotless(Map<String, String> env, String stdin, String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        KnotlessCli.run(
            List.of(argv),
            new CliContext(
                env,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    return new Ran(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static XrpcClient login(PdsInstance pds, Account a) throws Exception {
    XrpcClient c = XrpcClient.create(pds.pdsUrl());
    c.login(a.handle(), a.password());
    return c;
  }

  static ObjectNode rec(String type, String... kv) {
    ObjectNode v = Json.object().put("$type", type).put("createdAt", "2026-11-29T10:00:00.000Z");
    for (int i = 0; i < kv.length; i += 2) {
      v.put(kv[i], kv[i + 1]);
    }
    return v;
  }

  /**
   * Two repositories with refs, claims, packs, reruns, a state and pulls; a pull and a queue entry
   * into another's; checks; a redirect; two posts and a profile.
   */
  static void populate(XrpcClient me, String otherRepoKey, String runnerDid) throws Exception {
    List<Write> w = new ArrayList<>();
    for (String name : List.of("site", "notes")) {
      String key = Tid.next();
      ObjectNode repo = rec("dev.knotless.repo", "key", key, "defaultBranch", "main");
      if (name.equals("site")) {
        repo.putArray("runners").add(runnerDid);
        repo.putArray("collaborators").add("did:plc:collaboratorxxxxxxxxxxxx");
        w.add(
            Write.create(
                "dev.knotless.redirect",
                "oldsite",
                rec(
                    "dev.knotless.redirect",
                    "key",
                    key,
                    "repo",
                    "at://" + me.did() + "/dev.knotless.repo/site")));
      }
      w.add(Write.create("dev.knotless.repo", name, repo));
      for (String ref : List.of("refs/heads/main", "refs/heads/topic")) {
        String h = Hashes.h(ref);
        w.add(
            Write.create(
                "dev.knotless.ref",
                key + "." + h,
                rec("dev.knotless.ref", "name", ref, "target", "a".repeat(40))));
        w.add(
            Write.create(
                "dev.knotless.claim",
                key + "." + h + ".1",
                rec("dev.knotless.claim", "to", "a".repeat(40))));
        w.add(
            Write.create(
                "dev.knotless.pack",
                key + "." + Tid.next(),
                rec("dev.knotless.pack", "data", "UEFDSw==")));
      }
      w.add(
          Write.create(
              "dev.knotless.rerun",
              key + "." + Tid.next(),
              rec("dev.knotless.rerun", "ref", "refs/heads/main")));
      String pull = key + "." + Tid.next();
      w.add(
          Write.create(
              "dev.knotless.pull", pull, rec("dev.knotless.pull", "title", "into my own")));
      w.add(
          Write.create(
              "dev.knotless.state",
              pull + "." + Tid.next(),
              rec("dev.knotless.state", "state", "closed")));
      w.add(
          Write.create(
              "dev.knotless.check",
              Hashes.h(me.did()) + "." + key + ".x." + "a".repeat(40) + ".test",
              rec("dev.knotless.check", "status", "success")));
    }
    w.add(
        Write.create(
            "dev.knotless.pull",
            otherRepoKey + "." + Tid.next(),
            rec("dev.knotless.pull", "title", "into theirs")));
    w.add(
        Write.create(
            "dev.knotless.queue",
            otherRepoKey + "." + Tid.next(),
            rec("dev.knotless.queue", "pull", "at://x")));
    me.applyWrites(me.did(), w);
    me.applyWrites(
        me.did(),
        List.of(
            Write.create(
                "app.bsky.feed.post", Tid.next(), rec("app.bsky.feed.post", "text", "first")),
            Write.create(
                "app.bsky.feed.post", Tid.next(), rec("app.bsky.feed.post", "text", "second")),
            Write.create(
                "app.bsky.actor.profile",
                "self",
                Json.object().put("$type", "app.bsky.actor.profile").put("displayName", "Me"))));
  }

  /** Every record of the account by collection and key, to its CID. */
  static Map<String, String> all(XrpcClient c, String did) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (JsonNode coll : c.describeRepo(did).path("collections")) {
      String cursor = null;
      do {
        RecordPage p = c.listRecords(did, coll.asText(), 100, cursor, false);
        for (Record r : p.records()) {
          out.put(coll.asText() + "/" + r.rkey(), r.cid());
        }
        cursor = p.records().size() < 100 ? null : p.cursor();
      } while (cursor != null);
    }
    return out;
  }

  static Map<String, String> knotless(Map<String, String> records, boolean keep) {
    Map<String, String> out = new TreeMap<>();
    records.forEach(
        (k, v) -> {
          if (k.startsWith("dev.knotless.") == keep) {
            out.put(k, v);
          }
        });
    return out;
  }

  @Test
  void deletesEveryKnotlessRecordAndNothingElseAndARunCutShortCarriesOnWhenRunAgain(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account me = pds.createAccount("deld");
    Account other = pds.createAccount("delo");
    XrpcClient mine = login(pds, me);
    XrpcClient theirs = login(pds, other);
    String otherKey = Tid.next();
    theirs.applyWrites(
        other.did(),
        List.of(
            Write.create("dev.knotless.repo", "shared", rec("dev.knotless.repo", "key", otherKey)),
            Write.create(
                "dev.knotless.pull",
                otherKey + "." + Tid.next(),
                rec("dev.knotless.pull", "title", "theirs"))));
    populate(mine, otherKey, other.did());
    Map<String, String> before = all(mine, me.did());
    Map<String, String> othersBefore = all(theirs, other.did());
    Map<String, String> env = env(pds, me, tmp);

    // Says what there is, asks, and a "no" deletes nothing.
    Ran declined = knotless(env, "no\n", "account", "delete-data");
    assertEquals(1, declined.exit(), declined.err());
    assertTrue(
        declined.out().contains("dev.knotless.ref")
            && declined.out().lines().anyMatch(l -> l.matches("dev\\.knotless\\.ref +4")),
        declined.out());
    assertTrue(declined.out().contains("2 repositories:"), declined.out());
    assertTrue(
        declined
            .out()
            .contains(
                "  site  (pushed to by did:plc:collaboratorxxxxxxxxxxxx; read by "
                    + other.did()
                    + ")"),
        declined.out());
    assertTrue(declined.out().lines().anyMatch(l -> l.equals("  notes")), declined.out());
    assertTrue(declined.out().contains("Type yes:"), declined.out());
    assertTrue(declined.err().contains("nothing was deleted"), declined.err());
    assertEquals(before, all(mine, me.did()));

    // Killed after five writes: the process stops there, whatever it was doing.
    int[] writes = {0};
    DataDeleter cut =
        new DataDeleter(
            mine,
            me.did(),
            w -> {
              if (++writes[0] > 5) {
                throw new IllegalStateException("killed");
              }
              mine.applyWrites(me.did(), w);
            });
    assertThrows(
        IllegalStateException.class,
        () ->
            cut.deleteAll(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
    Map<String, String> halfway = all(mine, me.did());
    assertTrue(knotless(halfway, true).size() < knotless(before, true).size(), halfway.toString());
    assertTrue(
        halfway.containsKey("dev.knotless.repo/site")
            || halfway.containsKey("dev.knotless.repo/notes"),
        halfway.toString());

    Ran again = knotless(env, "", "account", "delete-data", "--yes");
    assertEquals(0, again.exit(), again.err());
    Map<String, String> after = all(mine, me.did());
    assertEquals(Map.of(), knotless(after, true));
    assertEquals(knotless(before, false), after);
    assertEquals(3, after.size());
    assertEquals(othersBefore, all(theirs, other.did()));
    assertTrue(again.out().contains("deleted repository"), again.out());

    Ran nothing = knotless(env, "", "account", "delete-data");
    assertEquals(0, nothing.exit(), nothing.err());
    assertEquals("no knotless records\n", nothing.out());
  }
}
