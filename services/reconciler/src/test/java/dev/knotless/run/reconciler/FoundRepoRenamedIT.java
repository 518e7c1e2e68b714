package dev.knotless.run.reconciler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.run.reconciler.adapter.db.WatchedTable;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.PostgresResource;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.pg.PgRunQueue;
import dev.knotless.storage.cli.CreateCommand;
import dev.knotless.storage.cli.RenameCommand;
import dev.knotless.testing.infra.OwnerRepo;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.logmanager.formatters.PatternFormatter;
import org.junit.jupiter.api.Test;

/**
 * Discovery in the distributed shape, against the real PDS, broker and PostgreSQL, with the harness
 * appview listing what names the runner: a found repository the owner renames is found again by its
 * key, keeps its {@code watched_repo} row under its new name and queues its pushes' runs under that
 * name, and a new repository made under its old name is watched apart (runner.md, issue 19).
 */
@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "reconciler"))
@WithTestResource(value = PostgresResource.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = FoundRepoResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
@QuarkusTest
class FoundRepoRenamedIT {
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  @Inject WatchedTable table;
  @Inject PgRunQueue queue;

  @Test
  void aFoundRepositoryRenamedRunsUnderItsNewNameByItsKeyAndItsOldNameTakenAgainIsWatchedApart()
      throws Exception {
    Lines log = Lines.of("dev.knotless.runner.discover");
    try {
      OwnerRepo app = FoundRepoResource.owner();
      String owner = app.account.did();
      String key = app.key();
      RepoId id = new RepoId(owner, key);

      // Found by the appview's list, naming the runner: the push that made it is queued.
      assertEquals(owner + "/app", queuedAs(key, FoundRepoResource.firstPush()));
      assertEquals(new WatchedTable.Row(id, "app", WatchedTable.DISCOVERED), row(id));

      FoundRepoResource.asOwner(ctx -> RenameCommand.run(app.label(), "renamed", ctx));
      // The same work tree, pushing under the new name; the push's refs ring the door by key.
      OwnerRepo renamed = FoundRepoResource.ownerAt("renamed", "owner");
      assertEquals(key, renamed.key());
      String two = renamed.commit(Map.of("README.md", "two\n"));
      renamed.push("main");
      Outputs.ring(id, Doorbell.frame("dev.knotless.ref"));
      assertEquals(owner + "/renamed", queuedAs(key, two));
      assertEquals(new WatchedTable.Row(id, "renamed", WatchedTable.DISCOVERED), row(id));
      String said = owner + "/app: renamed to renamed; found again by its key " + key;
      assertTrue(log.any(said + " and watched as " + owner + "/renamed"), log.toString());

      // A new repository takes the old name (a push there would follow the redirect), naming the
      // runner too: the sweep finds it, and each is watched by its key.
      FoundRepoResource.asOwner(
          ctx ->
              CreateCommand.run(
                  app.label(), List.of(FoundRepoResource.runner().did()), false, null, ctx));
      OwnerRepo taken = FoundRepoResource.ownerAt("app", "taken");
      assertNotEquals(key, taken.key());
      RepoId takenId = new RepoId(owner, taken.key());
      String theirs =
          taken.commit(Map.of(".knotless/workflows/w.yml", FoundRepoResource.SAYS_WHERE));
      taken.push("main");
      // As the ingester would: the sweep may have found the repository before the push landed.
      Outputs.ring(takenId, Doorbell.frame("dev.knotless.ref"));
      assertEquals(owner + "/app", queuedAs(taken.key(), theirs));
      assertEquals(new WatchedTable.Row(takenId, "app", WatchedTable.DISCOVERED), row(takenId));

      String three = renamed.commit(Map.of("README.md", "three\n"));
      renamed.push("main");
      Outputs.ring(id, Doorbell.frame("dev.knotless.ref"));
      assertEquals(owner + "/renamed", queuedAs(key, three));
      assertEquals(new WatchedTable.Row(id, "renamed", WatchedTable.DISCOVERED), row(id));
    } finally {
      log.close();
    }
  }

  /**
   * Waits for the push check of {@code commit} on main of the repository with {@code repoKey} to be
   * filed queued and its run queued with its order; the repository as the order names it to the
   * scheduler, which runs it under that name.
   */
  private String queuedAs(String repoKey, String commit) throws Exception {
    String owner = FoundRepoResource.owner().account.did();
    String rkey = CheckKeys.push(owner, repoKey, "refs/heads/main", commit, "w");
    await().atMost(DEADLINE).until(() -> checks().stream().anyMatch(r -> r.rkey().equals(rkey)));
    CheckRecord filed =
        CheckRecord.fromJson(
            checks().stream().filter(r -> r.rkey().equals(rkey)).findFirst().get().value());
    assertEquals(CheckStatus.QUEUED, filed.status(), String.valueOf(filed));
    assertEquals(commit, filed.commit());
    await().atMost(DEADLINE).until(() -> order(rkey) != null);
    return order(rkey).label();
  }

  /** The order the run of check {@code rkey} waits in the queue with, or null. */
  private RunOrder order(String rkey) throws Exception {
    for (PgRunQueue.Row r : queue.waiting(RunClass.MAIN)) {
      if (r.run().checkKey().equals(rkey) && r.run().order() != null) {
        return RunOrder.fromJson(r.run().order());
      }
    }
    return null;
  }

  private static List<Record> checks() throws Exception {
    return Outputs.checks(FoundRepoResource.runner().did());
  }

  private WatchedTable.Row row(RepoId id) throws Exception {
    return table.find(id).orElseThrow(() -> new AssertionError(id + " is not watched"));
  }

  /** The messages logged under a logger while it is open. */
  private static final class Lines extends Handler implements AutoCloseable {
    private final Logger logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private Lines(Logger logger) {
      this.logger = logger;
      // Its message with the arguments put in, however the logger was called.
      setFormatter(new PatternFormatter("%s"));
    }

    static Lines of(String name) {
      Lines l = new Lines(Logger.getLogger(name));
      l.logger.addHandler(l);
      return l;
    }

    boolean any(String part) {
      return lines.stream().anyMatch(s -> s.contains(part));
    }

    @Override
    public void publish(LogRecord r) {
      lines.add(getFormatter().formatMessage(r));
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      logger.removeHandler(this);
    }

    @Override
    public String toString() {
      return String.join("\n", lines);
    }
  }
}
