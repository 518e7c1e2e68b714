package dev.knotless.runner.check;

import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.RecordKeys;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The record keys of dev.knotless.check records, which say what was checked:
 *
 * <ul>
 *   <li>a push: {@code <h(owner did)>.<repo key>.<h(full ref)>.<commit>.<workflow>}
 *   <li>a pull: {@code <h(owner did)>.<repo key>.<h(pull AT-URI)>.<head>.<base>.<workflow>}
 *   <li>a merge-queue batch: {@code <h(owner did)>.<repo key>.<h("queue refs/heads/<branch>")>
 *       .<tip>.<base>.<workflow>}
 * </ul>
 *
 * <p>{@code h} is {@link Hashes#h}. Keys sort as strings, so the prefixes here list a repository's
 * checks, a ref's, a ref's at one commit, a pull's or a queue's with one listRecords scan.
 *
 * <p>The workflow part is the workflow's name when every character of it may stand in a record key
 * ({@code A-Z a-z 0-9 . _ : -}); otherwise each UTF-8 byte of every other character, {@code ~}
 * included, is written {@code ~XX} in upper-case hex, so two names never share a key ({@code "unit
 * tests"} is {@code unit~20tests}). A part that would then pass {@value #MAX_WORKFLOW_PART}
 * characters keeps its first characters and ends with {@code ~~} and the name's {@code h}, which an
 * escaped name cannot otherwise hold. Stateless and thread-safe.
 */
public final class CheckKeys {

  /** The longest workflow part, so the longest pull key stays within 512 characters. */
  public static final int MAX_WORKFLOW_PART = 200;

  private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
  private static final Pattern REPO_KEY = Pattern.compile("[A-Za-z0-9_:~-]{1,64}");

  private CheckKeys() {}

  /** The key of a push's check of {@code workflow} at {@code commit} on the full {@code ref}. */
  public static String push(
      String ownerDid, String repoKey, String ref, String commit, String workflow) {
    return key(refPrefix(ownerDid, repoKey, ref) + commit(commit) + "." + workflowPart(workflow));
  }

  /** The key of a pull's check at {@code head} merged with the base tip {@code base}. */
  public static String pull(
      String ownerDid, String repoKey, String pullUri, String head, String base, String workflow) {
    return key(
        pullPrefix(ownerDid, repoKey, pullUri)
            + commit(head)
            + "."
            + commit(base)
            + "."
            + workflowPart(workflow));
  }

  /**
   * The key of a merge-queue batch's check: the batch's {@code tip} built on {@code base} of the
   * branch whose full ref is {@code baseRef} ({@code refs/heads/<branch>}).
   */
  public static String queue(
      String ownerDid, String repoKey, String baseRef, String tip, String base, String workflow) {
    return key(
        queuePrefix(ownerDid, repoKey, baseRef)
            + commit(tip)
            + "."
            + commit(base)
            + "."
            + workflowPart(workflow));
  }

  /** The prefix every check of one repository shares, ending in a dot. */
  public static String repoPrefix(String ownerDid, String repoKey) {
    if (ownerDid == null || !ownerDid.startsWith("did:")) {
      throw new IllegalArgumentException("owner DID \"" + ownerDid + "\" is not a DID");
    }
    if (repoKey == null || !REPO_KEY.matcher(repoKey).matches()) {
      throw new IllegalArgumentException(
          "repository key \"" + repoKey + "\" is not a record key without dots");
    }
    return Hashes.h(ownerDid) + "." + repoKey + ".";
  }

  /** The prefix of a ref's push checks, ending in a dot. */
  public static String refPrefix(String ownerDid, String repoKey, String ref) {
    if (ref == null || !ref.startsWith("refs/")) {
      throw new IllegalArgumentException("\"" + ref + "\" is not a full ref name (refs/...)");
    }
    return repoPrefix(ownerDid, repoKey) + Hashes.h(ref) + ".";
  }

  /** The prefix of a ref's push checks at one commit, ending in a dot. */
  public static String commitPrefix(String ownerDid, String repoKey, String ref, String commit) {
    return refPrefix(ownerDid, repoKey, ref) + commit(commit) + ".";
  }

  /** The prefix of a pull's checks, ending in a dot. */
  public static String pullPrefix(String ownerDid, String repoKey, String pullUri) {
    if (pullUri == null || !pullUri.startsWith("at://")) {
      throw new IllegalArgumentException("\"" + pullUri + "\" is not a pull's AT-URI");
    }
    return repoPrefix(ownerDid, repoKey) + Hashes.h(pullUri) + ".";
  }

  /** The prefix of a branch's merge-queue checks, ending in a dot. */
  public static String queuePrefix(String ownerDid, String repoKey, String baseRef) {
    return repoPrefix(ownerDid, repoKey) + queueHash(baseRef) + ".";
  }

  /**
   * Whether {@code key} is the key of a merge-queue batch's check on {@code baseRef}, of the
   * repository {@code repoKey} of {@code ownerDid}; false for any ref that is not a branch.
   */
  public static boolean isBatch(String ownerDid, String repoKey, String baseRef, String key) {
    return baseRef != null
        && baseRef.startsWith("refs/heads/")
        && key.startsWith(queuePrefix(ownerDid, repoKey, baseRef));
  }

  /** {@code h("queue refs/heads/<branch>")}: the third part of a batch's key. */
  public static String queueHash(String baseRef) {
    if (baseRef == null || !baseRef.startsWith("refs/heads/")) {
      throw new IllegalArgumentException(
          "\"" + baseRef + "\" is not a branch's full ref name (refs/heads/...)");
    }
    return Hashes.h("queue " + baseRef);
  }

  /** The workflow's name as it stands in a key: as written, or escaped, or cut and hashed. */
  public static String workflowPart(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a workflow name may not be empty");
    }
    StringBuilder sb = new StringBuilder();
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      boolean plain =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == ':'
              || c == '-';
      if (plain) {
        sb.append((char) c);
      } else {
        sb.append('~').append(String.format("%02X", c));
      }
    }
    if (sb.length() <= MAX_WORKFLOW_PART) {
      return sb.toString();
    }
    int keep = MAX_WORKFLOW_PART - 2 - 26;
    // Do not cut inside a ~XX escape.
    int tilde = sb.lastIndexOf("~", keep - 1);
    if (tilde >= 0 && tilde > keep - 3) {
      keep = tilde;
    }
    return sb.substring(0, keep) + "~~" + Hashes.h(name);
  }

  private static String commit(String sha) {
    if (sha == null || !COMMIT.matcher(sha).matches()) {
      throw new IllegalArgumentException(
          "\"" + sha + "\" is not a commit id (40 or 64 lower-case hex digits)");
    }
    return sha;
  }

  private static String key(String k) {
    return RecordKeys.validate(k);
  }
}
