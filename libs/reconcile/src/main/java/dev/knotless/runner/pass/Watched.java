package dev.knotless.runner.pass;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.function.Function;

/**
 * A repository the runner watches.
 *
 * @param label how the command line named it, which names it in logs, in {@code KNOTLESS_RUN_REPO}
 *     and in the secrets file
 * @param address where it lives: the owner's DID and PDS and the name
 * @param id the owner's DID and the repository's key, fixed when it was first read
 * @param privateRepo whether its records live in its owner's space, read as a member there
 */
public record Watched(String label, RepoAddress address, RepoId id, boolean privateRepo) {

  /** A public repository. */
  public Watched(String label, RepoAddress address, RepoId id) {
    this(label, address, id, false);
  }

  /** The state's and the scheduler's name for it: {@code <owner did>/<repo key>}. */
  public String stateKey() {
    return id.ownerDid() + "/" + id.repoKey();
  }

  /** The repository record's AT-URI, as checks name it. */
  public String repoUri() {
    return "at://" + id.ownerDid() + "/dev.knotless.repo/" + address.name();
  }

  /**
   * Reads a repository named on the command line: resolves its owner to a DID and PDS and reads the
   * repository record, whose key it is watched by from then on.
   *
   * @param label {@code <handle or did>/<name>}, optionally as a {@code knotless://} URL
   * @throws IOException when the owner does not resolve or holds no repository of that name
   */
  public static Watched read(
      String label,
      IdentityResolver identities,
      Function<URI, XrpcClient> ownerClient,
      StorageCache cache,
      Clock clock)
      throws IOException {
    RepoAddress address = address(label, identities);
    // The record alone, one round trip: its key is what names the repository; the refs are the
    // first pass's to read.
    Snapshot snap =
        new SnapshotReader(ownerClient.apply(address.pds()), cache, clock).readRecord(address);
    return found(label, address, snap).repo();
  }

  /** Where {@code label} points: its owner resolved to a DID and PDS, and the name. */
  static RepoAddress address(String label, IdentityResolver identities) throws IOException {
    String owner = ownerOf(label);
    Identity id = identities.resolve(owner);
    return new RepoAddress(id.did(), owner, id.pds(), nameOf(label));
  }

  /** The owner part of a label ({@code <handle or did>/<name>}, maybe a knotless:// URL). */
  static String ownerOf(String label) {
    String s = bare(label);
    return s.substring(0, s.indexOf('/'));
  }

  /** The name part of a label. */
  static String nameOf(String label) {
    String s = bare(label);
    return s.substring(s.indexOf('/') + 1);
  }

  private static String bare(String label) {
    return label.startsWith("knotless://") ? label.substring("knotless://".length()) : label;
  }

  static Found found(String label, RepoAddress address, Snapshot snap) throws IOException {
    if (!snap.exists()) {
      throw new IOException(
          "no repository " + address.name() + " in " + address.owner() + "'s account");
    }
    return new Found(
        new Watched(label, snap.address(), new RepoId(address.did(), snap.repo().key())), snap);
  }

  /** A repository read, with the snapshot (refs, no packs) it was read from. */
  public record Found(Watched repo, Snapshot snapshot) {}

  /** As {@link #read}, keeping the snapshot, so a caller that needs the refs reads them once. */
  public static Found find(
      String label,
      IdentityResolver identities,
      Function<URI, XrpcClient> ownerClient,
      StorageCache cache,
      Clock clock)
      throws IOException {
    RepoAddress address = address(label, identities);
    Snapshot snap =
        new SnapshotReader(ownerClient.apply(address.pds()), cache, clock)
            .read(address, SnapshotReader.Packs.NONE);
    return found(label, address, snap);
  }
}
