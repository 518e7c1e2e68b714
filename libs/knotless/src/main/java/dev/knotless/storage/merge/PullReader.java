package dev.knotless.storage.merge;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.gate.MergeGate;
import dev.knotless.runner.pull.PullRecord;
import dev.knotless.runner.pull.PullState;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a pull where it is now, as a runner checks it, for the merge gate: the pull record from its
 * author's PDS, the base repository from its owner's, the head from its owner's, both fetched into
 * the local mirror and merged there with {@link MergeCommits} (the same commit every runner makes),
 * the workflows of that commit the gate waits for, and the checks of that head and base filed by
 * the accounts the repository's {@code runners} names, read from each one's own PDS. One instance
 * per command; not thread-safe.
 */
public final class PullReader {

  /** The check record's collection. */
  public static final String CHECKS = "dev.knotless.check";

  private final KnotlessRepos repos;
  private final IdentityResolver identities;

  public PullReader(KnotlessRepos repos, IdentityResolver identities) {
    this.repos = repos;
    this.identities = identities;
  }

  /**
   * A pull as read now.
   *
   * @param pull the pull record
   * @param repo the base repository
   * @param snap the base repository as read, refs only; a merge pushes against it
   * @param mirror the local mirror holding the base, the head and the merge commit
   * @param repoKey the base repository's key
   * @param runners the DIDs its record's {@code runners} names
   * @param state the newest state its owner or a collaborator wrote: open, closed or merged
   * @param head the head branch's commit
   * @param base the base branch's tip
   * @param merged what the pull is checked at: a merge commit, the head, or a conflict
   * @param workflows the workflows the gate waits for (on a conflict, those of the head)
   */
  public record Reading(
      PullRecord pull,
      RepoAddress repo,
      Snapshot snap,
      Mirror mirror,
      String repoKey,
      List<String> runners,
      String state,
      String head,
      String base,
      MergeCommits.Merged merged,
      List<String> workflows) {
    public Reading {
      runners = List.copyOf(runners);
      workflows = List.copyOf(workflows);
    }
  }

  /**
   * Reads the pull {@code uri}.
   *
   * @throws IOException when a record cannot be read, or the pull's base or head is gone
   */
  public Reading read(String uri) throws IOException {
    Identity author = identities.resolve(uri.substring("at://".length(), uri.indexOf('/', 5)));
    Record rec =
        XrpcClient.create(author.pds())
            .getRecord(
                author.did(), PullRecord.COLLECTION, uri.substring(uri.lastIndexOf('/') + 1));
    PullRecord pull = PullRecord.parse(uri, rec.value());
    RepoAddress repo = repos.locate(pull.base().did(), pull.base().name());
    Snapshot snap = repos.snapshots(repos.reader(repo)).read(repo, SnapshotReader.Packs.NONE);
    if (!snap.exists() || !pull.base().key().equals(snap.key().orElse(null))) {
      throw new IOException("the pull's base repository " + pull.base().repoUri() + " is gone");
    }
    JsonNode record = snap.repo().raw();
    String key = snap.repo().key();
    RefRecord base = snap.liveRefs().get(pull.base().ref());
    if (base == null) {
      throw new IOException("the pull's base branch " + pull.base().ref() + " is gone");
    }
    Mirror mirror = repos.mirror(repo, key);
    mirror.sync(snap, repos.fetcher(repos.reader(repo)));
    String head = headOf(pull, snap, mirror);

    MergeCommits.Merged merged =
        MergeCommits.merge(
            mirror.git(), head, base.target(), pull.head().ref(), pull.base().ref(), uri);
    List<String> runners = dids(record.path("runners"));
    String at = merged instanceof MergeCommits.Checked c ? c.commit() : head;
    List<String> workflows = new ArrayList<>();
    if (merged instanceof MergeCommits.Checked) {
      workflows.addAll(
          MergeGate.workflows(
              CommitFiles.workflowSet(mirror.git(), at), pull.base().ref(), runners));
    } else {
      for (Workflow w : CommitFiles.workflowSet(mirror.git(), at).workflows()) {
        if (w.runsOnPullInto(pull.base().ref())) {
          workflows.add(w.name());
        }
      }
    }
    String state = state(uri, repo.did(), key, dids(record.path("collaborators")));
    return new Reading(
        pull, repo, snap, mirror, key, runners, state, head, base.target(), merged, workflows);
  }

  /** The head's commit, fetched into the mirror from its owner's PDS when it is another repo's. */
  private String headOf(PullRecord pull, Snapshot snap, Mirror mirror) throws IOException {
    boolean same =
        pull.head().did().equals(pull.base().did()) && pull.head().key().equals(pull.base().key());
    if (same) {
      RefRecord head = snap.liveRefs().get(pull.head().ref());
      if (head == null) {
        throw new IOException("the pull's head branch " + pull.head().ref() + " is gone");
      }
      return head.target();
    }
    RepoAddress at = repos.locate(pull.head().did(), pull.head().name());
    XrpcClient client = repos.reader(at);
    Snapshot headSnap = repos.snapshots(client).read(at, SnapshotReader.Packs.NONE);
    if (!headSnap.exists() || !pull.head().key().equals(headSnap.key().orElse(null))) {
      throw new IOException("the pull's head repository " + pull.head().repoUri() + " is gone");
    }
    RefRecord head = headSnap.liveRefs().get(pull.head().ref());
    if (head == null) {
      throw new IOException("the pull's head branch " + pull.head().ref() + " is gone");
    }
    mirror.fetch(headSnap, repos.fetcher(client), List.of(head.target()));
    return head.target();
  }

  /**
   * The checks at the reading's head and base, from each account its {@code runners} names: one
   * prefix scan per runner. Checks by any other account are never read.
   */
  public List<MergeGate.Seen> checks(Reading r) throws IOException {
    String prefix =
        CheckKeys.pullPrefix(r.repo().did(), r.repoKey(), r.pull().uri())
            + r.head()
            + "."
            + r.base()
            + ".";
    List<MergeGate.Seen> out = new ArrayList<>();
    for (String runner : new LinkedHashSet<>(r.runners())) {
      Identity id = identities.resolve(runner);
      for (Record c : scan(XrpcClient.create(id.pds()), id.did(), CHECKS, prefix)) {
        JsonNode v = c.value();
        out.add(
            new MergeGate.Seen(
                id.did(),
                v.path("workflow").asText(""),
                v.path("status").asText(""),
                v.path("createdAt").asText(""),
                v.path("note").asText("")));
      }
    }
    return out;
  }

  /**
   * The newest state of the pull its owner or a collaborator wrote, read from their own PDSes
   * (their states of this repository share the prefix {@code <repo key>.}), or {@code open}.
   */
  private String state(String uri, String owner, String key, List<String> collaborators)
      throws IOException {
    Set<String> writers = new LinkedHashSet<>();
    writers.add(owner);
    writers.addAll(collaborators);
    List<PullState> states = new ArrayList<>();
    for (String w : writers) {
      Identity id = identities.resolve(w);
      for (Record s :
          scan(XrpcClient.create(id.pds()), id.did(), PullState.COLLECTION, key + ".")) {
        if (uri.equals(s.value().path("pull").asText())) {
          states.add(
              new PullState(
                  s.uri(),
                  id.did(),
                  s.value().path("state").asText(""),
                  s.value().path("createdAt").asText("")));
        }
      }
    }
    if (PullState.open(states, owner, collaborators)) {
      return "open";
    }
    return states.stream()
        .filter(s -> List.of("closed", "merged").contains(s.state()))
        .max(Comparator.comparing(PullState::createdAt).thenComparing(PullState::uri))
        .map(PullState::state)
        .orElse("closed");
  }

  /** Every record of {@code collection} in {@code did}'s account whose key starts with prefix. */
  public static List<Record> scan(XrpcClient client, String did, String collection, String prefix)
      throws IOException {
    return client.listPrefixed(did, collection, prefix);
  }

  private static List<String> dids(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
