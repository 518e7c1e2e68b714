package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A push that runs into the PDS's write rate limit, against the reference PDS with its real limits
 * on: 5000 write points an hour per account, a create costing 3. A push of 2000 new refs is 11
 * {@code applyWrites} calls of up to 200 creates (600 points each), so the 9th call passes the
 * hour's budget and is answered 429 with {@code ratelimit-reset}.
 */
@WithPds(rateLimits = true, scope = WithPds.Scope.CLASS)
class PushRateLimitIT {
  private static final int REFS = 2000;
  private static final String PREFIX = "rate limited by the PDS; writes resume at ";

  @Test
  void aPushRefusedByTheRateLimitKeepsWhatLandedAndSaysWhenToPushTheRestAgain(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("rate");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "f.txt", "limited\n");
    Git local = Git.at(work.resolve(".git"));
    String head = local.revParse("HEAD");
    List<RefUpdate> updates = new ArrayList<>();
    for (int i = 0; i < REFS; i++) {
      updates.add(new RefUpdate(String.format("refs/heads/b-%04d", i), head, false));
    }

    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("limited");
      Instant before = Instant.now();
      PushResult first = f.pusher().push(repo, local, updates);

      Set<String> pushed = new TreeSet<>();
      List<String> refused = new ArrayList<>();
      for (PushResult.Outcome o : first.outcomes()) {
        if (o.ok()) {
          pushed.add(o.ref());
        } else {
          refused.add(o.ref());
        }
      }
      assertTrue(first.landed(), "some calls should have landed before the limit");
      assertFalse(pushed.isEmpty(), "no ref was pushed");
      assertFalse(refused.isEmpty(), "the limit was never reached; outcomes: " + pushed.size());
      // The push ends at the refused call: refs are batched in order, so what landed is a prefix.
      assertEquals(
          updates.subList(0, pushed.size()).stream().map(RefUpdate::ref).toList(),
          List.copyOf(pushed));
      int callsThatLanded = (pushed.size() + 1 + 199) / 200;
      assertEquals(
          callsThatLanded + 1,
          proxy.requests("com.atproto.repo.applyWrites"),
          "no applyWrites should follow the refused one");
      for (String ref : refused) {
        String error = first.outcome(ref).orElseThrow().error();
        assertTrue(error.startsWith(PREFIX), ref + ": " + error);
        Instant resume = Instant.parse(error.substring(PREFIX.length()));
        assertTrue(
            resume.isAfter(before)
                && resume.isBefore(before.plus(Duration.ofHours(1).plusMinutes(5))),
            "writes resume at " + resume + ", not within the hour after " + before);
      }

      // The PDS holds exactly the refs reported pushed, at the pushed commit.
      Map<String, dev.knotless.storage.records.RefRecord> live =
          f.reader().read(repo, SnapshotReader.Packs.NONE).liveRefs();
      assertEquals(pushed, new TreeSet<>(live.keySet()));
      live.values().forEach(r -> assertEquals(head, r.target(), r.name()));

      // Pushing again, still inside the hour, writes only what is missing: the pushed refs are up
      // to date, and the one call it makes, for the rest, is refused again.
      proxy.reset();
      PushResult again = f.pusher().push(repo, local, updates);
      for (PushResult.Outcome o : again.outcomes()) {
        if (pushed.contains(o.ref())) {
          assertTrue(o.ok(), o.ref() + ": " + o.error());
        } else {
          assertTrue(o.error() != null && o.error().startsWith(PREFIX), o.ref() + ": " + o.error());
        }
      }
      assertFalse(again.landed());
      assertEquals(1, proxy.requests("com.atproto.repo.applyWrites"));
    }
  }
}
