package dev.knotless.atproto;

import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;

/**
 * Every call of {@link XrpcClientIT} against the real PDS again, through the client the git helper
 * and the owner's commands use ({@link BlockingHttpClient}): sessions, errors with their bodies (a
 * 401 to a POST among them), records, blobs, a refresh shared by concurrent callers.
 */
@WithPds
class XrpcClientBlockingIT extends XrpcClientIT {
  XrpcClientBlockingIT(PdsInstance pds) {
    super(pds);
  }

  @Override
  boolean blocking() {
    return true;
  }
}
