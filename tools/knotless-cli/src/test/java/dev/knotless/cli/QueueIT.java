package dev.knotless.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.lexicon.LexiconValidator;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code knotless queue} and {@code knotless dequeue} against the real reference PDS. */
@WithPds
class QueueIT {

  record Ran(int exit, String out, String err) {}

  private static Ran knotless(Map<String, String> env, String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        KnotlessCli.run(
            List.of(argv),
            new CliContext(
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    return new Ran(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Map<String, String> env(PdsInstance pds, Account as, Path home) {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_CACHE_DIR", home.resolve("cache").toString());
    env.put("KNOTLESS_CONFIG_DIR", home.resolve("config").toString());
    env.put("HOME", home.toString());
    env.put("KNOTLESS_IDENTIFIER", as.handle());
    env.put("KNOTLESS_PASSWORD", as.password());
    return env;
  }

  private static List<Record> queued(PdsInstance pds, Account in) throws Exception {
    return XrpcClient.create(pds.pdsUrl())
        .listRecords(in.did(), "dev.knotless.queue", 100, null, false)
        .records();
  }

  @Test
  void queueWritesOneRecordInTheWritersAccountAndDequeueDeletesIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("qown"), pds.pdsUrl(), "app", tmp.resolve("o"));
    repo.commit(Map.of("README.md", "hello\n"));
    repo.push("main");
    repo.git("checkout", "-q", "-b", "feature");
    repo.commit(Map.of("a.txt", "a\n"));
    repo.push("feature");
    String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");
    Map<String, String> owner = env(pds, repo.account, tmp.resolve("owner"));

    Ran q = knotless(owner, "queue", pull);
    assertEquals(0, q.exit(), q.err());
    assertTrue(q.out().startsWith("queued " + pull + " on refs/heads/main"), q.out());
    List<Record> records = queued(pds, repo.account);
    assertEquals(1, records.size());
    Record r = records.get(0);
    assertTrue(r.rkey().startsWith(repo.key() + "."), r.rkey());
    assertEquals(pull, r.value().path("pull").asText());
    LexiconValidator lexicons =
        LexiconValidator.load(
            Path.of(System.getProperty("knotless.repo.root", "../..")).resolve("lexicons"));
    assertEquals(List.of(), lexicons.problems("dev.knotless.queue", r.value()));

    Ran again = knotless(owner, "queue", pull);
    assertEquals(0, again.exit(), again.err());
    assertTrue(again.out().contains("already queued"), again.out());
    assertEquals(1, queued(pds, repo.account).size());

    // Anyone may write one, in their own account; the runner counts only the owner's and
    // collaborators'.
    Account stranger = pds.createAccount("qstr");
    Ran theirs = knotless(env(pds, stranger, tmp.resolve("stranger")), "queue", pull);
    assertEquals(0, theirs.exit(), theirs.err());
    assertEquals(1, queued(pds, stranger).size());
    assertEquals(1, queued(pds, repo.account).size());

    Ran out = knotless(owner, "dequeue", pull);
    assertEquals(0, out.exit(), out.err());
    assertTrue(out.out().contains("took " + pull + " out of the queue"), out.out());
    assertEquals(List.of(), queued(pds, repo.account));
    assertEquals(1, queued(pds, stranger).size());

    Ran notQueued = knotless(owner, "dequeue", pull);
    assertEquals(1, notQueued.exit());
    assertTrue(notQueued.err().contains("has not queued " + pull), notQueued.err());

    String missing = pull.substring(0, pull.lastIndexOf('.')) + ".3kaaaaaaaaaaa";
    Ran gone = knotless(owner, "queue", missing);
    assertEquals(1, gone.exit());
    assertTrue(gone.err().startsWith("knotless: "), gone.err());
    assertEquals(List.of(), queued(pds, repo.account));
  }
}
