package dev.knotless.runner.sealed;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.secrets.OwnerGrants;
import dev.knotless.runner.secrets.RunnerKeyFile;
import dev.knotless.runner.secrets.RunnerKeys;
import dev.knotless.storage.secrets.AppviewSecrets;
import dev.knotless.storage.secrets.SealedSecret;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The owner's half of a run's secrets: those sealed to this runner for the repository, listed by
 * the appview ({@code dev.knotless.listSecrets}, with the runner's own service token) and opened
 * with the keys in the key file, read again for every run that needs one so a rotation applies
 * without a restart. {@link OwnerGrants} decides what opens. Thread-safe.
 */
public final class OwnerSecrets {

  private final AppviewSecrets appview;
  private final Path keyFile;
  private final String runnerDid;

  public OwnerSecrets(AppviewSecrets appview, Path keyFile, String runnerDid) {
    this.appview = appview;
    this.keyFile = keyFile;
    this.runnerDid = runnerDid;
  }

  /**
   * Opens what the owner of {@code repo} sealed to this runner for it under the names {@code
   * wanted}.
   *
   * @throws IOException when the appview does not answer or the key file cannot be read; the
   *     message names neither a value nor a key
   */
  public OwnerGrants.Opened open(RepoId repo, Collection<String> wanted) throws IOException {
    String did = repo.ownerDid();
    String key = repo.repoKey();
    List<SealedSecret> listed;
    try {
      listed = appview.list(did, key, runnerDid);
    } catch (IOException e) {
      throw new IOException("the appview's sealed secrets cannot be read: " + e.getMessage(), e);
    }
    RunnerKeys keys = RunnerKeyFile.read(keyFile);
    List<OwnerGrants.Offer> offers = new ArrayList<>();
    for (SealedSecret s : listed) {
      offers.add(new OwnerGrants.Offer(s.name(), s.refs(), s.sealed()));
    }
    return OwnerGrants.open(keys, runnerDid, did, key, offers, wanted);
  }
}
