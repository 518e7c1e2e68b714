package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.storage.compact.Compactor;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.pack.PackPlacement;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records as clients before 0.6 wrote them: generations from 1, no pack, deleted refs kept. */
@WithPds
class PreSixRecordsIT {

  @Test
  void aRepositoryWrittenBeforeSixClonesPushesAndCompacts(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("old");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    Git local = Git.at(a.resolve(".git"));
    String c1 = local.revParse("HEAD");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    String key = Tid.next();
    String created = Instant.now().minus(Duration.ofDays(30)).toString();
    byte[] pack =
        local.run(
            (c1 + "\n").getBytes(StandardCharsets.UTF_8),
            "pack-objects",
            "--revs",
            "--stdout",
            "-q");
    PackRecord p =
        new PackRecord(
            Keys.pack(key, Tid.next()),
            List.of(c1),
            List.of(),
            PackPlacement.objectCount(pack),
            pack.length,
            pack,
            List.of(),
            List.of(),
            created);
    ObjectNode repoRecord = JsonNodeFactory.instance.objectNode();
    repoRecord.put("key", key).put("defaultBranch", "main").put("createdAt", created);
    f.client.applyWrites(
        owner.did(),
        List.of(
            Write.create(Lexicons.REPO, "legacy", repoRecord),
            Write.create(Lexicons.PACK, p.rkey(), p.toJson()),
            Write.create(
                Lexicons.REF,
                Keys.ref(key, "refs/heads/main"),
                legacyRef("refs/heads/main", c1, 1, created)),
            Write.create(
                Lexicons.REF,
                Keys.ref(key, "refs/heads/old"),
                legacyRef("refs/heads/old", null, 3, created)),
            Write.create(
                Lexicons.REF,
                Keys.ref(key, "refs/heads/gone"),
                legacyRef("refs/heads/gone", null, 4, created))));

    String url = "knotless://" + owner.handle() + "/legacy";
    String remote = me.ok(a, "ls-remote", url);
    assertTrue(remote.contains("refs/heads/main"));
    assertFalse(remote.contains("refs/heads/old"), "a deleted pre-0.6 ref is not listed");
    me.ok(tmp, "clone", "-q", url, "b");
    assertEquals(c1, me.ok(tmp.resolve("b"), "rev-parse", "HEAD").strip());

    String c2 = me.commit(a, "b.txt", "b\n");
    me.ok(a, "push", "-q", url, "main", "main:old");
    RepoAddress repo = f.repo("legacy");
    Snapshot s = f.reader().read(repo, SnapshotReader.Packs.NONE);
    RefRecord main = s.liveRefs().get("refs/heads/main");
    assertEquals(2, main.generation(), "a pre-0.6 ref moves 1 -> 2");
    assertTrue(
        f.client
            .findRecord(owner.did(), Lexicons.CLAIM, Keys.claim(key, "refs/heads/main", 1))
            .isPresent());
    RefRecord old = s.liveRefs().get("refs/heads/old");
    assertEquals(c2, old.target());
    assertTrue(old.generation() > 3);
    assertTrue(
        f.client
            .findRecord(owner.did(), Lexicons.CLAIM, Keys.claim(key, "refs/heads/old", 3))
            .isPresent());

    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(11));
    Compactor.Result r = f.compactor(later).compact(repo, false);
    assertEquals(1, r.emptyRefsDeleted());
    assertFalse(
        f.client
            .findRecord(owner.did(), Lexicons.REF, Keys.ref(key, "refs/heads/gone"))
            .isPresent());
    assertTrue(
        f.client
            .findRecord(owner.did(), Lexicons.CLAIM, Keys.claim(key, "refs/heads/gone", 4))
            .isPresent());
    me.ok(tmp, "clone", "-q", url, "c");
    assertEquals(c2, me.ok(tmp.resolve("c"), "rev-parse", "HEAD").strip());
  }

  private static ObjectNode legacyRef(String name, String target, long generation, String at) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("name", name);
    if (target != null) {
      n.put("target", target);
    }
    n.put("generation", generation);
    n.put("createdAt", at);
    return n;
  }
}
