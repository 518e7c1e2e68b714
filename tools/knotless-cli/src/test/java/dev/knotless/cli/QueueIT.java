package dev.knotless.cli;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.lexicon.LexiconValidator;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import dev.knotless.testing.infra.ToolRun;
import dev.knotless.testing.infra.ToolRun.Ran;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code knotless queue} and {@code knotless dequeue} against the real reference PDS. */
@WithPds
class QueueIT {

  private static Ran knotless(Map<String, String> env, String... argv) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(argv), ctx));
  }

  /** The owner's repository with a pull from its branch {@code feature} into {@code main}. */
  private static String pullToQueue(OwnerRepo repo) throws Exception {
    repo.commit(Map.of("README.md", "hello\n"));
    repo.push("main");
    repo.git("checkout", "-q", "-b", "feature");
    repo.commit(Map.of("a.txt", "a\n"));
    repo.push("feature");
    return new PullAuthor(repo).open(repo, "main", repo, "feature");
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
    String pull = pullToQueue(repo);
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

  @Test
  void aCollaboratorLoggedInWithKnotlessLoginQueuesInTheirOwnAccountNotTheOwners(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("qbase"), pds.pdsUrl(), "app", tmp.resolve("o"));
    String pull = pullToQueue(repo);
    Account collab = pds.createAccount("qcollab");
    Record base = repo.client.getRecord(repo.account.did(), "dev.knotless.repo", "app");
    ObjectNode withCollab = ((ObjectNode) base.value()).deepCopy();
    withCollab.putArray("collaborators").add(collab.did());
    repo.client.putRecord(
        repo.account.did(), "dev.knotless.repo", "app", withCollab, Swap.cid(base.cid()));

    // One person's machine: the owner's session saved by commands run with the owner's
    // credentials, then `knotless login` as the collaborator; no credentials in the environment.
    Path home = tmp.resolve("collab");
    Map<String, String> asOwner = env(pds, repo.account, home);
    assertEquals(0, knotless(asOwner, "queue", pull).exit());
    assertEquals(0, knotless(asOwner, "dequeue", pull).exit());
    Map<String, String> login = env(pds, collab, home);
    login.remove("KNOTLESS_IDENTIFIER");
    Ran in = knotless(login, "login", collab.handle());
    assertEquals(0, in.exit(), in.all());
    Map<String, String> saved = env(pds, collab, home);
    saved.remove("KNOTLESS_IDENTIFIER");
    saved.remove("KNOTLESS_PASSWORD");

    Ran q = knotless(saved, "queue", pull);
    assertEquals(0, q.exit(), q.all());
    assertTrue(q.out().contains("(at://" + collab.did() + "/dev.knotless.queue/"), q.out());
    assertEquals(1, queued(pds, collab).size());
    assertEquals(List.of(), queued(pds, repo.account), "nothing written as the owner");

    Ran again = knotless(saved, "queue", pull);
    assertTrue(again.out().contains("already queued by " + collab.did()), again.all());
    Ran out = knotless(saved, "dequeue", pull);
    assertEquals(0, out.exit(), out.all());
    assertEquals(List.of(), queued(pds, collab));

    // The environment's account still comes first.
    Ran asEnv = knotless(asOwner, "queue", pull);
    assertEquals(0, asEnv.exit(), asEnv.all());
    assertEquals(1, queued(pds, repo.account).size());
    assertEquals(List.of(), queued(pds, collab));
  }
}
