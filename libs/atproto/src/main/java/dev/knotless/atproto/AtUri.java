package dev.knotless.atproto;

/**
 * An AT-URI naming a record: {@code at://<did>/<collection>/<rkey>}.
 *
 * @param did the account (a DID, or a handle as some servers echo it)
 * @param collection the collection NSID
 * @param rkey the record key
 */
public record AtUri(String did, String collection, String rkey) {

  /**
   * Parses a record AT-URI.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static AtUri parse(String uri) {
    if (uri == null || !uri.startsWith("at://")) {
      throw new IllegalArgumentException("not an AT-URI (it must start with at://): " + uri);
    }
    String[] parts = uri.substring(5).split("/", -1);
    if (parts.length != 3 || parts[0].isEmpty()) {
      throw new IllegalArgumentException(
          "not a record AT-URI (it must be at://<did>/<collection>/<rkey>): " + uri);
    }
    Nsids.validate(parts[1]);
    RecordKeys.validate(parts[2]);
    return new AtUri(parts[0], parts[1], parts[2]);
  }

  @Override
  public String toString() {
    return "at://" + did + "/" + collection + "/" + rkey;
  }
}
