package dev.knotless.storage;

import java.io.IOException;

/**
 * A record that does not parse as the knotless record its collection holds. The message names the
 * record's AT-URI and what is wrong with it. A scan that meets one fails rather than skipping it.
 */
public final class RecordFormatException extends IOException {
  private final String uri;

  public RecordFormatException(String uri, String problem) {
    // A hostile PDS chooses the URI's record key: escaped, so it cannot break the line it is on.
    super(
        (dev.knotless.atproto.Printable.hasUnprintable(uri)
                ? dev.knotless.atproto.Printable.escape(uri)
                : uri)
            + ": "
            + problem);
    this.uri = uri;
  }

  /** The AT-URI of the record that did not parse. */
  public String uri() {
    return uri;
  }
}
