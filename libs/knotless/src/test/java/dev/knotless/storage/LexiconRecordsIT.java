package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.lexicon.LexiconValidator;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.storage.cli.RerunCommand;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the storage code leaves in a real account agrees with lexicons/dev/knotless, both ways: git
 * pushes (new refs, moves, a delete, a pack over blobs), a compaction and {@code knotless rerun},
 * then every record of every {@code dev.knotless.*} collection the PDS lists is checked.
 */
@WithPds
class LexiconRecordsIT {

  @Test
  void everyRecordPushesACompactionAndARerunLeaveAgreesWithItsLexicon(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("lex");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    String url = "knotless://" + owner.handle() + "/lexed";
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "remote", "add", "origin", url);
    me.ok(a, "push", "-q", "origin", "main", "main:refs/heads/gone", "main:refs/tags/v1");
    me.commit(a, "b.txt", "b\n");
    me.ok(a, "push", "-q", "origin", "main");
    me.ok(a, "push", "-q", "origin", "--delete", "gone");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(11));
    assertEquals(2, f.compactor(later).compact(f.repo("lexed"), false).packsFolded());
    byte[] noise = new byte[300_000];
    new Random(5).nextBytes(noise);
    Files.write(a.resolve("noise.bin"), noise);
    me.ok(a, "add", "noise.bin");
    me.ok(a, "commit", "-q", "-m", "big");
    me.ok(a, "push", "-q", "origin", "main");
    me.ok(a, "push", "-q", "-f", "origin", "main~2:refs/heads/main");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    Map<String, String> env = me.env();
    int exit =
        RerunCommand.run(
            url,
            "main",
            null,
            "ci",
            List.of("LEVEL=2"),
            new CliContext(env, print, print, () -> KnotlessRepos.fromEnvironment(env)));
    assertEquals(0, exit, out.toString(StandardCharsets.UTF_8));

    LexiconValidator lexicons =
        LexiconValidator.load(
            Path.of(System.getProperty("knotless.repo.root", "../..")).resolve("lexicons"));
    XrpcClient anyone = XrpcClient.create(pds.pdsUrl());
    Map<String, Integer> counts = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (JsonNode c : anyone.describeRepo(owner.did()).path("collections")) {
      String collection = c.asText();
      if (!collection.startsWith("dev.knotless.")) {
        continue;
      }
      for (Record r : all(anyone, owner.did(), collection)) {
        counts.merge(collection, 1, Integer::sum);
        lexicons.problems(collection, r.value()).forEach(p -> problems.add(r.uri() + ": " + p));
      }
    }
    assertEquals(List.of(), problems);
    // A repo record, main and v1 (gone was deleted), the claims of main's three moves and gone's
    // delete, the fold and the big push's pack over blobs, and the rerun.
    assertEquals(
        Map.of(
            "dev.knotless.repo", 1,
            "dev.knotless.ref", 2,
            "dev.knotless.claim", 4,
            "dev.knotless.pack", 2,
            "dev.knotless.rerun", 1),
        counts);
  }

  private static List<Record> all(XrpcClient client, String did, String collection)
      throws Exception {
    List<Record> out = new ArrayList<>();
    String cursor = null;
    do {
      RecordPage page = client.listRecords(did, collection, 100, cursor, false);
      out.addAll(page.records());
      cursor = page.records().isEmpty() ? null : page.cursor();
    } while (cursor != null);
    return out;
  }
}
