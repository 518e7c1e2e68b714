package dev.knotless.atproto;

/**
 * The outcome of one write.
 *
 * @param uri the record's AT-URI, or null for a delete
 * @param cid the new record's CID, or null for a delete
 */
public record WriteResult(String uri, String cid) {}
