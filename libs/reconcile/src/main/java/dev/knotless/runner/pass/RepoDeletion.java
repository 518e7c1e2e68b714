package dev.knotless.runner.pass;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.secrets.SecretsFileException;
import dev.knotless.runner.secrets.SecretsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clears what the runner kept of a repository found deleted: every check it filed of it (the PDS
 * reaps their logs and outputs, which no record then references), and the grants the secrets file
 * gives its label, so a repository made later under that name does not inherit them. The runner
 * keeps no caches under the shell executor. Thread-safe.
 */
public final class RepoDeletion {

  private static final Logger LOG = LoggerFactory.getLogger(RepoDeletion.class);

  private final CheckFiler filer;
  private final Path secretsFile;

  /**
   * @param secretsFile {@code --secrets}, or null
   */
  public RepoDeletion(CheckFiler filer, Path secretsFile) {
    this.filer = filer;
    this.secretsFile = secretsFile;
  }

  /**
   * Clears the repository's checks and grants.
   *
   * @throws IOException when the checks cannot be deleted or the secrets file not rewritten; the
   *     pass fails and the next one tries again
   */
  public void clear(Watched repo) throws IOException {
    List<String> keys =
        filer.list(CheckKeys.repoPrefix(repo.id().ownerDid(), repo.id().repoKey())).stream()
            .map(Record::rkey)
            .toList();
    deleteChecks(keys);
    LOG.info("{}: deleted: removed its {} checks", repo.label(), keys.size());
    if (secretsFile != null && Files.exists(secretsFile)) {
      try {
        if (SecretsFiles.removeLabel(secretsFile, repo.label())) {
          LOG.info("{}: deleted: its grants removed from the secrets file", repo.label());
        }
      } catch (SecretsFileException e) {
        throw new IOException(
            repo.label() + ": deleted, but its grants could not be removed: " + e.getMessage(), e);
      }
    }
  }

  private void deleteChecks(List<String> keys) throws XrpcException {
    if (!keys.isEmpty()) {
      filer.delete(keys);
    }
  }
}
