package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One record as a PDS returned it.
 *
 * @param uri its AT-URI
 * @param cid its CID
 * @param value its JSON body, {@code $type} included
 */
public record Record(String uri, String cid, JsonNode value) {

  /** The record key: the last segment of the AT-URI. */
  public String rkey() {
    return AtUri.parse(uri).rkey();
  }

  /** The collection: the middle segment of the AT-URI. */
  public String collection() {
    return AtUri.parse(uri).collection();
  }
}
