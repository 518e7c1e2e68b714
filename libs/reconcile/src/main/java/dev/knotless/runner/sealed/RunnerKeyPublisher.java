package dev.knotless.runner.sealed;

import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.secrets.RunnerKeyFile;
import dev.knotless.runner.secrets.RunnerKeys;
import dev.knotless.storage.secrets.RunnerKeyRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the runner's {@code dev.knotless.runnerKey} record naming the newest key in its key file:
 * made on the first start, and written again only when the key differs (after a rotation) or the
 * record does not parse. Thread-safe.
 */
public final class RunnerKeyPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(RunnerKeyPublisher.class);

  private final XrpcClient runner;
  private final Path keyFile;
  private final Clock clock;

  public RunnerKeyPublisher(XrpcClient runner, Path keyFile, Clock clock) {
    this.runner = runner;
    this.keyFile = keyFile;
    this.clock = clock;
  }

  /**
   * Makes the key file if missing and publishes its newest key if the record says otherwise.
   *
   * @return the key published
   * @throws IOException when the key file cannot be read or made, or the PDS refuses
   */
  public String publish() throws IOException {
    RunnerKeys keys = RunnerKeyFile.loadOrCreate(keyFile, clock.instant());
    String newest = keys.newest().didKey();
    String did = runner.did();
    Optional<String> published;
    try {
      published = RunnerKeyRecord.read(runner, did);
    } catch (IOException e) {
      if (e instanceof dev.knotless.atproto.XrpcException) {
        throw e;
      }
      LOG.warn("{}; writing it again", e.getMessage());
      published = Optional.empty();
    }
    if (published.isPresent() && published.get().equals(newest)) {
      return newest;
    }
    runner.putRecord(
        did,
        RunnerKeyRecord.COLLECTION,
        RunnerKeyRecord.RKEY,
        RunnerKeyRecord.value(newest, keys.newest().createdAt()),
        Swap.none());
    LOG.info("published the key owners seal secrets to: {}", newest);
    return newest;
  }
}
