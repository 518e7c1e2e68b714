package dev.knotless.runner.sealed;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.storage.secrets.AppviewSecrets;
import java.io.IOException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start does for owners' sealed secrets: makes the key file on the first start, publishes
 * its newest key, and, with an appview, gives the planner an {@link OwnerSecrets}. Later, {@link
 * #republish} (every sweep) publishes a key a rotation put first while the runner ran.
 */
public final class SealedStart {

  private static final Logger LOG = LoggerFactory.getLogger(SealedStart.class);

  private final RunnerKeyPublisher publisher;
  private final OwnerSecrets owner;

  private SealedStart(RunnerKeyPublisher publisher, OwnerSecrets owner) {
    this.publisher = publisher;
    this.owner = owner;
  }

  /**
   * Publishes the runner's key.
   *
   * @throws IOException when the key file cannot be read or made, or the record cannot be written
   */
  public static SealedStart begin(RunnerOptions o, XrpcClient runner, Clock clock)
      throws IOException {
    if (o.secretsKey() == null) {
      LOG.info("no --secrets-key: secrets owners sealed to this runner are not opened");
      return new SealedStart(null, null);
    }
    RunnerKeyPublisher publisher = new RunnerKeyPublisher(runner, o.secretsKey(), clock);
    try {
      publisher.publish();
    } catch (IOException e) {
      throw new IOException("--secrets-key: " + e.getMessage(), e);
    }
    OwnerSecrets owner =
        o.appview() == null
            ? null
            : new OwnerSecrets(
                new AppviewSecrets(XrpcClient.create(o.appview()), runner),
                o.secretsKey(),
                runner.did());
    return new SealedStart(publisher, owner);
  }

  /** The owners' secrets for the planner, or null without a key file or an appview. */
  public OwnerSecrets owner() {
    return owner;
  }

  /** Publishes the newest key if it changed; a failure is logged and tried again next time. */
  public void republish() {
    if (publisher == null) {
      return;
    }
    try {
      publisher.publish();
    } catch (IOException | RuntimeException e) {
      LOG.warn("the runner's key could not be published: {}", e.getMessage());
    }
  }
}
