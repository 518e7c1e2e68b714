package dev.knotless.storage.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.pull.PullRecord;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.merge.PullReader;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * {@code knotless queue <pull>} and {@code knotless dequeue <pull>}: put a pull in its base
 * branch's merge queue, or take it out, with a {@code dev.knotless.queue} record ({@code {"pull",
 * "createdAt"}}, keyed {@code <base repo key>.<tid>}) in the writer's own account (docs/merge.md,
 * "Queueing a pull"). The writer is this person ({@link KnotlessRepos#self}: the account {@code
 * KNOTLESS_IDENTIFIER} names, else the one {@code knotless login} saved), else the base
 * repository's owner; the runner landing the queue counts only the owner's and collaborators'
 * records. Queueing a pull this account already queued writes nothing; dequeueing deletes every
 * record of this account naming the pull. Stateless.
 */
public final class QueueCommand {
  /** The queue record's collection. */
  public static final String COLLECTION = "dev.knotless.queue";

  private QueueCommand() {}

  /** Queues {@code pullUri}; returns the exit code. */
  public static int queue(String pullUri, CliContext ctx) throws IOException {
    Target t = target(pullUri, ctx);
    List<Record> mine = named(t, pullUri);
    if (!mine.isEmpty()) {
      ctx.out()
          .println(
              pullUri
                  + " is already queued by "
                  + t.writer().did()
                  + " ("
                  + mine.get(0).uri()
                  + ")");
      return 0;
    }
    String rkey = t.pull().base().key() + "." + Tid.next();
    t.writer()
        .putRecord(t.writer().did(), COLLECTION, rkey, record(pullUri, Instant.now()), Swap.none());
    ctx.out()
        .println(
            "queued "
                + pullUri
                + " on "
                + t.pull().base().ref()
                + " of "
                + t.pull().base().repoUri()
                + " (at://"
                + t.writer().did()
                + "/"
                + COLLECTION
                + "/"
                + rkey
                + ")");
    return 0;
  }

  /** Takes {@code pullUri} out of the queue; returns the exit code: 1 when it was not queued. */
  public static int dequeue(String pullUri, CliContext ctx) throws IOException {
    Target t = target(pullUri, ctx);
    List<Record> mine = named(t, pullUri);
    if (mine.isEmpty()) {
      ctx.err().println("knotless: " + t.writer().did() + " has not queued " + pullUri);
      return 1;
    }
    for (Record r : mine) {
      t.writer().deleteRecord(t.writer().did(), COLLECTION, r.rkey());
    }
    ctx.out().println("took " + pullUri + " out of the queue of " + t.pull().base().ref());
    return 0;
  }

  /** The record's value, as lexicons/dev/knotless/queue.json has it. */
  public static ObjectNode record(String pullUri, Instant now) {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("pull", pullUri);
    n.put("createdAt", now.toString());
    return n;
  }

  private record Target(PullRecord pull, XrpcClient writer) {}

  /** Reads the pull, and logs in as the writer: this person's account, else the owner. */
  private static Target target(String pullUri, CliContext ctx) throws IOException {
    if (pullUri == null || !pullUri.matches("at://[^/]+/dev\\.knotless\\.pull/[^/]+")) {
      throw new UsageException(
          pullUri + ": expected a pull's AT-URI, at://<did>/dev.knotless.pull/<key>");
    }
    KnotlessRepos repos = ctx.repos();
    IdentityResolver identities =
        IdentityResolver.fromEnvironment(ctx.env(), repos.cache().local());
    Identity author = identities.resolve(pullUri.substring(5, pullUri.indexOf('/', 5)));
    Record rec =
        XrpcClient.create(author.pds())
            .getRecord(
                author.did(),
                PullRecord.COLLECTION,
                pullUri.substring(pullUri.lastIndexOf('/') + 1));
    PullRecord pull;
    try {
      pull = PullRecord.parse(pullUri, rec.value());
    } catch (IllegalArgumentException e) {
      throw new IOException(pullUri + " is not a pull that can be queued: " + e.getMessage(), e);
    }
    String who = repos.self().orElse(pull.base().did());
    RepoAddress as = repos.locate(who, pull.base().name());
    return new Target(pull, repos.writer(as));
  }

  /** This account's queue records of the base repository that name {@code pullUri}. */
  private static List<Record> named(Target t, String pullUri) throws IOException {
    return PullReader.scan(t.writer(), t.writer().did(), COLLECTION, t.pull().base().key() + ".")
        .stream()
        .filter(r -> pullUri.equals(r.value().path("pull").asText(null)))
        .toList();
  }
}
