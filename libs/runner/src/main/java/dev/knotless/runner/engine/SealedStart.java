package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.sealed.OwnerSecrets;
import dev.knotless.runner.sealed.RunnerKeyPublisher;
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
    try {
      return begin(o.secretsKey(), o.appview(), runner, clock);
    } catch (IOException e) {
      throw new IOException("--secrets-key: " + e.getMessage(), e);
    }
  }

  /**
   * As the all-in-one's start, for a process given the key file and the appview by its own settings
   * (the distributed shape's scheduler, or a reconciler that runs steps): makes the key file if
   * missing, publishes its newest key and opens owners' secrets with it.
   *
   * @param keyFile the key file; the distributed shape mounts it from a Kubernetes Secret
   * @param appview the appview sealed secrets are listed from; null opens none
   * @throws IOException when the key file cannot be read or made, or the record cannot be written
   */
  public static SealedStart begin(
      java.nio.file.Path keyFile, java.net.URI appview, XrpcClient runner, Clock clock)
      throws IOException {
    RunnerKeyPublisher publisher = new RunnerKeyPublisher(runner, keyFile, clock);
    publisher.publish();
    if (appview == null) {
      LOG.info("no appview: secrets owners sealed to this runner are not opened");
    }
    OwnerSecrets owner =
        appview == null
            ? null
            : new OwnerSecrets(
                new AppviewSecrets(XrpcClient.create(appview), runner), keyFile, runner.did());
    return new SealedStart(publisher, owner);
  }

  /** A start without a key file: owners' sealed secrets are not opened. */
  public static SealedStart none() {
    return new SealedStart(null, null);
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
