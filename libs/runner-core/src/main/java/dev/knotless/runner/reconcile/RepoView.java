package dev.knotless.runner.reconcile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A watched repository as its owner's PDS shows it at the start of a pass: the input of the pass's
 * decisions, mapped by the caller from the storage module's snapshot. Immutable.
 *
 * @param ownerDid the owner's DID
 * @param key the repository record's key (a TID fixed when the repository was made)
 * @param defaultBranch the record's default branch name; null or blank means {@code main}
 * @param refs every ref there is now
 */
public record RepoView(String ownerDid, String key, String defaultBranch, List<RefState> refs) {

  public RepoView {
    if (ownerDid == null || !ownerDid.startsWith("did:")) {
      throw new IllegalArgumentException("a repository's owner must be a DID, got: " + ownerDid);
    }
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("repository of " + ownerDid + " has no key");
    }
    defaultBranch = defaultBranch == null || defaultBranch.isBlank() ? "main" : defaultBranch;
    refs = List.copyOf(refs);
    Map<String, RefState> seen = new LinkedHashMap<>();
    for (RefState r : refs) {
      if (seen.put(r.name(), r) != null) {
        throw new IllegalArgumentException("ref " + r.name() + " is listed twice");
      }
    }
  }

  /** The repository as the runner names it internally: {@code <owner did>/<key>}. */
  public String id() {
    return ownerDid + "/" + key;
  }

  /** The default branch's full ref name. */
  public String defaultRef() {
    return "refs/heads/" + defaultBranch;
  }

  /** The ref of that name, if it exists now. */
  public Optional<RefState> ref(String name) {
    return refs.stream().filter(r -> r.name().equals(name)).findFirst();
  }
}
