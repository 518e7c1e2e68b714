package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import java.io.IOException;
import java.time.Instant;

/**
 * Someone opening and closing pulls, as the knotless client writes them: a {@code
 * dev.knotless.pull} record in the author's own account, keyed {@code <base repo key>.<tid>}, and
 * {@code dev.knotless.state} records beside it.
 */
public final class PullAuthor {
  private final OwnerRepo account;

  /** Writes as the account logged in to {@code account}'s client. */
  public PullAuthor(OwnerRepo account) {
    this.account = account;
  }

  /**
   * Opens a pull from {@code headBranch} of {@code head} into {@code baseBranch} of {@code base}.
   *
   * @return the pull record's AT-URI
   */
  public String open(OwnerRepo base, String baseBranch, OwnerRepo head, String headBranch)
      throws IOException {
    ObjectNode v = JsonNodeFactory.instance.objectNode();
    v.set("base", branch(base, baseBranch));
    v.set("head", branch(head, headBranch));
    v.put("title", "change " + headBranch);
    v.put("createdAt", Instant.now().toString());
    String rkey = base.key() + "." + Tid.next();
    account.client.putRecord(account.account.did(), "dev.knotless.pull", rkey, v, Swap.none());
    return "at://" + account.account.did() + "/dev.knotless.pull/" + rkey;
  }

  /** Writes a state for the pull ({@code open}, {@code closed} or {@code merged}). */
  public void state(OwnerRepo base, String pullUri, String state) throws IOException {
    ObjectNode v = JsonNodeFactory.instance.objectNode();
    v.put("pull", pullUri);
    v.put("state", state);
    v.put("createdAt", Instant.now().toString());
    String rkey = base.key() + "." + Tid.next();
    account.client.putRecord(account.account.did(), "dev.knotless.state", rkey, v, Swap.none());
  }

  private static ObjectNode branch(OwnerRepo repo, String branch) throws IOException {
    ObjectNode b = JsonNodeFactory.instance.objectNode();
    b.put("repo", "at://" + repo.account.did() + "/dev.knotless.repo/" + repo.address.name());
    b.put("key", repo.key());
    b.put("ref", "refs/heads/" + branch);
    return b;
  }
}
