package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.liveoutput.AppviewSender;
import dev.knotless.runner.liveoutput.LiveOutput;
import dev.knotless.storage.secrets.AppviewSecrets;
import java.net.URI;
import java.time.Clock;
import java.util.Optional;

/**
 * Opens the all-in-one runner's live output when it has an appview ({@code KNOTLESS_APPVIEW}): each
 * {@code dev.knotless.putRunOutput} carries a service token the runner's PDS makes for the appview,
 * whose DID its {@code dev.knotless.describeServer} gives (asked once, when first needed).
 */
final class LiveOutputs {

  private LiveOutputs() {}

  /** The live output for {@code appview}, or null when there is none. */
  static LiveOutput open(URI appview, XrpcClient runner) {
    if (appview == null) {
      return null;
    }
    XrpcClient client = XrpcClient.create(appview);
    String[] did = {null};
    AppviewSender.Tokens tokens =
        () -> {
          synchronized (did) {
            if (did[0] == null) {
              did[0] = AppviewSecrets.describe(client).did();
            }
          }
          return Optional.of(runner.serviceToken(did[0], AppviewSender.NSID));
        };
    return new LiveOutput(new AppviewSender(appview, tokens), Clock.systemUTC());
  }
}
