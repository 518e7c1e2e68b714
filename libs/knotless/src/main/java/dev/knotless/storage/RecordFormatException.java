package dev.knotless.storage;

import java.io.IOException;

/**
 * A record that does not parse as the knotless record its collection holds. The message names the
 * record's AT-URI and what is wrong with it. A scan that meets one fails rather than skipping it.
 */
public final class RecordFormatException extends IOException {
  private final String uri;

  public RecordFormatException(String uri, String problem) {
    super(uri + ": " + problem);
    this.uri = uri;
  }

  /** The AT-URI of the record that did not parse. */
  public String uri() {
    return uri;
  }
}
