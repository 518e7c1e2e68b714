package dev.knotless.cli.checks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;

/** Check entries for the tests, as a runner would file them. */
final class Checks {
  static final String OWNER_HASH = "aaaaaaaaaaaaaaaaaaaaaaaaaa";
  static final String REPO_KEY = "3lbcdefghij22";
  static final String RUNNER = "did:plc:runner";

  private Checks() {}

  /** A check of {@code workflow} at {@code commit} on the ref whose hash is {@code refHash}. */
  static CheckEntry check(
      String refHash, String commit, String workflow, String status, String started, String ended) {
    ObjectNode v = Json.object();
    v.put("$type", "dev.knotless.check");
    v.put("repo", "at://did:plc:owner/dev.knotless.repo/site");
    v.put("ref", "refs/heads/" + refHash.substring(0, 4));
    v.put("commit", commit);
    v.put("workflow", workflow);
    v.put("status", status);
    v.put("createdAt", "2026-11-29T10:00:00.000Z");
    if (started != null) {
      v.put("startedAt", started);
    }
    if (ended != null) {
      v.put("endedAt", ended);
    }
    v.putArray("steps");
    String tail = refHash + "." + commit + "." + workflow;
    String rkey = OWNER_HASH + "." + REPO_KEY + "." + tail;
    return new CheckEntry(
        RUNNER,
        "at://" + RUNNER + "/dev.knotless.check/" + rkey,
        "bafycid" + tail.hashCode(),
        tail,
        v);
  }
}
