package dev.knotless.runner.mergequeue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.knotless.atproto.Record;
import dev.knotless.runner.doorbell.RepoId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The queue records read again between passes ({@code --notice}), against listed records. */
class QueueNoticeTest {
  private static final String OWNER = "did:plc:owner";
  private static final String FRIEND = "did:plc:friend";
  private static final RepoId APP = new RepoId(OWNER, "3kapp2222222a");

  /** What each account holds now, as the PDS would list it; a missing account cannot be read. */
  private final Map<String, List<Record>> now = new HashMap<>();

  private final List<String> listed = new ArrayList<>();
  private final QueueNotice notice =
      new QueueNotice(
          did -> null,
          (client, did, prefix) -> {
            listed.add(did + " " + prefix);
            List<Record> records = now.get(did);
            if (records == null) {
              throw new IOException(did + "'s PDS does not answer");
            }
            return records;
          });

  private static Record queued(String did, String tid, String cid) {
    return new Record(
        "at://" + did + "/dev.knotless.queue/" + APP.repoKey() + "." + tid,
        cid,
        JsonNodeFactory.instance.objectNode());
  }

  private void passRead() {
    notice.read(APP, null, Map.copyOf(now));
  }

  @Test
  void recordsAsTheLastPassReadThemRingNothing() {
    now.put(OWNER, List.of(queued(OWNER, "3kq1", "c1")));
    now.put(FRIEND, List.of());
    passRead();

    assertEquals(List.of(), notice.changed());
    // In no set order: the pass's reads come as a map.
    assertEquals(
        java.util.Set.of(OWNER + " " + APP.recordKeyPrefix(), FRIEND + " " + APP.recordKeyPrefix()),
        java.util.Set.copyOf(listed),
        "each account the pass read is listed under the repository's key");
    assertEquals(2, listed.size(), "each listed once: " + listed);
  }

  @Test
  void aCollaboratorQueueingAPullRingsTheRepositoryUntilAPassReadsIt() {
    now.put(OWNER, List.of());
    now.put(FRIEND, List.of());
    passRead();

    now.put(FRIEND, List.of(queued(FRIEND, "3kq2", "c2")));
    assertEquals(List.of(APP), notice.changed());
    assertEquals(List.of(APP), notice.changed(), "still, until a pass reads it");

    passRead();
    assertEquals(List.of(), notice.changed());
  }

  @Test
  void aRecordRewrittenOrDeletedRings() {
    now.put(OWNER, List.of(queued(OWNER, "3kq1", "c1")));
    passRead();

    now.put(OWNER, List.of(queued(OWNER, "3kq1", "c1-rewritten")));
    assertEquals(List.of(APP), notice.changed(), "the same key at another CID");
    now.put(OWNER, List.of());
    assertEquals(List.of(APP), notice.changed(), "the record deleted");
  }

  @Test
  void anAccountThatCannotBeReadIsPassedOverNotRung() {
    now.put(OWNER, List.of());
    now.put(FRIEND, List.of(queued(FRIEND, "3kq2", "c2")));
    passRead();

    now.remove(FRIEND);
    assertEquals(List.of(), notice.changed());
  }

  @Test
  void anAccountThePassCouldNotReadIsNotReadEither() {
    now.put(OWNER, List.of());
    passRead(); // the friend's PDS was down: the pass read the owner's alone

    now.put(FRIEND, List.of(queued(FRIEND, "3kq2", "c2")));
    listed.clear();
    assertEquals(List.of(), notice.changed());
    assertEquals(List.of(OWNER + " " + APP.recordKeyPrefix()), listed);
  }

  @Test
  void aQueueForgottenIsNotReadAgain() {
    now.put(OWNER, List.of());
    passRead();
    notice.forget(APP);
    listed.clear();

    now.put(OWNER, List.of(queued(OWNER, "3kq1", "c1")));
    assertEquals(List.of(), notice.changed());
    assertEquals(List.of(), listed);
  }
}
