package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheUse;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.workflow.Superseded;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pull's and a batch's run planned again from their orders, as the scheduler does, against the
 * reference PDS: the merge made again from the pull records and heads read there, no secret given
 * though the secrets file grants one, whose code it is decided from the records rather than the
 * order, and an order that does not match what the PDS says refused naming why.
 */
@WithPds
class MergeOrdersIT {
  static final String MAIN = "refs/heads/main";
  static final String CI =
      """
      on: {pull: {base: [refs/heads/main]}}
      secrets: [TOKEN]
      cache: [deps]
      steps:
        - name: check
          run: echo checked
      """;

  private record Stage(OwnerRepo owner, OrderPlanner orders, String base, String key) {}

  private static Stage stage(PdsInstance pds, Path tmp) throws Exception {
    Account runner = pds.createAccount("run");
    OwnerRepo owner = new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp);
    owner.commit(Map.of("README.md", "hi\n", ".knotless/workflows/ci.yml", CI));
    owner.push("main");
    for (String b : List.of("one", "two")) {
      owner.git("checkout", "-q", "-b", b, "main");
      owner.commit(Map.of(b + ".txt", b + "\n"));
      owner.push(b);
      owner.git("checkout", "-q", "main");
    }
    // main moves on, so each pull is checked at a merge commit.
    String base = owner.commit(Map.of("docs.md", "docs\n"));
    owner.push("main");
    Path secrets = tmp.resolve("secrets.json");
    Files.writeString(secrets, "{\"" + owner.label() + "\": {\"TOKEN\": \"s3cret-value\"}}");
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    env.put("KNOTLESS_PASSWORD", runner.password());
    env.put("KNOTLESS_CACHE_DIR", tmp.resolve("runner-cache").toString());
    Clock clock = Clock.systemUTC();
    PdsAccess access = PdsAccess.login(env, clock);
    RunPlanner planner =
        new RunPlanner(new RunPlanner.Settings(secrets, Duration.ofMinutes(5), null, Map.of()));
    return new Stage(
        owner,
        new OrderPlanner(access, planner, tmp.resolve("scheduler-cache"), clock),
        base,
        owner.key());
  }

  private static Git git(OwnerRepo o) {
    return Git.at(o.workTree().resolve(".git"));
  }

  private static String head(OwnerRepo o, String branch) throws Exception {
    return o.git("rev-parse", branch).strip();
  }

  private static RunOrder pullOrder(Stage s, String uri, String branch, String commit, String ref)
      throws Exception {
    String head = head(s.owner(), branch);
    String key = CheckKeys.pull(s.owner().account.did(), s.key(), uri, head, s.base(), "ci");
    return new RunOrder(
        s.owner().label(),
        s.owner().account.did(),
        s.key(),
        ref,
        commit,
        s.base(),
        "ci",
        RunClass.OTHER,
        Superseded.CANCEL,
        Map.of(),
        key,
        RunOrder.Kind.PULL,
        List.of(new RunOrder.Stacked(uri, head, "refs/heads/" + branch)),
        false);
  }

  private static String merged(Stage s, String uri, String branch) throws Exception {
    MergeCommits.Merged m =
        MergeCommits.merge(
            git(s.owner()), head(s.owner(), branch), s.base(), "refs/heads/" + branch, MAIN, uri);
    return ((MergeCommits.Checked) m).commit();
  }

  private static RunSpec spec(OrderPlanner orders, RunOrder order) throws Exception {
    return orders.plan(order).prepare().prepare();
  }

  @Test
  void aPullsRunIsCheckedAtTheMergeMadeAgainWithNoSecretAndItsTrustReadFromTheRecords(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Stage s = stage(pds, tmp);
    String mine = new PullAuthor(s.owner()).open(s.owner(), "main", s.owner(), "one");
    OwnerRepo stranger =
        new OwnerRepo(pds.createAccount("str"), pds.pdsUrl(), "fork", tmp.resolve("stranger"));
    // A stranger's pull of the owner's own branch: its author does not write to the repository.
    String theirs = new PullAuthor(stranger).open(s.owner(), "main", s.owner(), "two");

    RunOrder order = pullOrder(s, mine, "one", merged(s, mine, "one"), MAIN);
    RunOrder read = RunOrder.fromJson(order.toJson());
    PlannedRun run = s.orders().plan(read);
    assertEquals(SubjectKind.PULL, run.request().subjectKind());
    assertEquals(mine, run.check().pull());
    RunSpec spec = run.prepare().prepare();
    assertEquals(order.commit(), spec.commit());
    assertEquals(order.checkKey(), dev.knotless.runner.exec.pod.RunKey.of(spec));
    assertFalse(spec.env().containsKey("TOKEN"), spec.env().toString());
    assertFalse(spec.env().containsValue("s3cret-value"), spec.env().toString());
    assertFalse(spec.trustedCode());
    assertTrue(
        spec.preamble()
            .contains("==> TOKEN is not given to a pull's run: no pull run gets secrets"),
        spec.preamble().toString());
    // The owner's pull is trusted: it reads the shared caches.
    assertEquals(CacheUse.READ, spec.options().get(CacheRequest.class, CacheRequest.NONE).use());

    // The order says nothing of trust: the stranger's reads its caches apart all the same.
    RunSpec strangers =
        spec(s.orders(), pullOrder(s, theirs, "two", merged(s, theirs, "two"), MAIN));
    assertEquals(
        CacheUse.APART, strangers.options().get(CacheRequest.class, CacheRequest.NONE).use());
    assertFalse(strangers.env().containsValue("s3cret-value"));
  }

  @Test
  void anOrderThatIsNotWhatThePdsSaysIsRefusedNamingWhy(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Stage s = stage(pds, tmp);
    String uri = new PullAuthor(s.owner()).open(s.owner(), "main", s.owner(), "one");
    String merge = merged(s, uri, "one");

    // Another commit than merging the head into the base makes.
    String head = head(s.owner(), "one");
    String why = refused(s, pullOrder(s, uri, "one", head, MAIN));
    assertTrue(why.contains("makes " + merge + " here, not " + head), why);

    // A pull record into another branch than the order says.
    why = refused(s, pullOrder(s, uri, "one", merge, "refs/heads/two"));
    assertTrue(why.contains("as when the run was queued"), why);

    // A pull that is not there.
    String gone = uri.substring(0, uri.lastIndexOf('.')) + ".3zzzzzzzzzzzz";
    why = refused(s, pullOrder(s, gone, "one", merge, MAIN));
    assertTrue(why.contains("could not be read from its author's PDS"), why);

    // The right commit under another check key is another run.
    RunOrder o = pullOrder(s, uri, "one", merge, MAIN);
    RunOrder otherKey =
        new RunOrder(
            o.label(),
            o.ownerDid(),
            o.repoKey(),
            o.ref(),
            o.commit(),
            o.base(),
            o.workflow(),
            o.runClass(),
            o.superseded(),
            o.asked(),
            "3kotherkey",
            o.kind(),
            o.pulls(),
            false);
    why = refused(s, otherKey);
    assertTrue(why.contains("when queued"), why);
  }

  @Test
  void aBatchsRunIsCheckedAtItsPullsStackedAgainInOrder(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Stage s = stage(pds, tmp);
    PullAuthor author = new PullAuthor(s.owner());
    String one = author.open(s.owner(), "main", s.owner(), "one");
    String two = author.open(s.owner(), "main", s.owner(), "two");
    List<MergeCommits.Queued> queued =
        List.of(
            new MergeCommits.Queued(one, head(s.owner(), "one"), "refs/heads/one"),
            new MergeCommits.Queued(two, head(s.owner(), "two"), "refs/heads/two"));
    String tip =
        ((MergeCommits.Stacked) MergeCommits.stack(git(s.owner()), s.base(), MAIN, queued)).tip();
    RunOrder order =
        new RunOrder(
            s.owner().label(),
            s.owner().account.did(),
            s.key(),
            MAIN,
            tip,
            s.base(),
            "ci",
            RunClass.MAIN,
            Superseded.CANCEL,
            Map.of(),
            CheckKeys.queue(s.owner().account.did(), s.key(), MAIN, tip, s.base(), "ci"),
            RunOrder.Kind.BATCH,
            queued.stream().map(q -> new RunOrder.Stacked(q.uri(), q.head(), q.headRef())).toList(),
            false);
    PlannedRun run = s.orders().plan(RunOrder.fromJson(order.toJson()));
    assertEquals(SubjectKind.BATCH, run.request().subjectKind());
    RunSpec spec = run.prepare().prepare();
    assertEquals(tip, spec.commit());
    assertFalse(spec.env().containsValue("s3cret-value"));
    assertEquals(CacheUse.READ, spec.options().get(CacheRequest.class, CacheRequest.NONE).use());

    // The same pulls stacked the other way round make another tip: not this run.
    List<RunOrder.Stacked> swapped = List.of(order.pulls().get(1), order.pulls().get(0));
    RunOrder reordered =
        new RunOrder(
            order.label(),
            order.ownerDid(),
            order.repoKey(),
            order.ref(),
            order.commit(),
            order.base(),
            order.workflow(),
            order.runClass(),
            order.superseded(),
            order.asked(),
            order.checkKey(),
            order.kind(),
            swapped,
            false);
    String why = refused(s, reordered);
    assertTrue(why.contains("here, not " + tip), why);
  }

  private static String refused(Stage s, RunOrder order) {
    return assertThrows(PlannedRun.PrepareException.class, () -> spec(s.orders(), order))
        .getMessage();
  }
}
