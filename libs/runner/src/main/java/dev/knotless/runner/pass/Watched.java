package dev.knotless.runner.pass;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.storage.RepoAddress;

/**
 * A repository the runner watches.
 *
 * @param label how the command line named it, which names it in logs, in {@code KNOTLESS_RUN_REPO}
 *     and in the secrets file
 * @param address where it lives: the owner's DID and PDS and the name
 * @param id the owner's DID and the repository's key, fixed when it was first read
 */
public record Watched(String label, RepoAddress address, RepoId id) {

  /** The state's and the scheduler's name for it: {@code <owner did>/<repo key>}. */
  public String stateKey() {
    return id.ownerDid() + "/" + id.repoKey();
  }

  /** The repository record's AT-URI, as checks name it. */
  public String repoUri() {
    return "at://" + id.ownerDid() + "/dev.knotless.repo/" + address.name();
  }
}
