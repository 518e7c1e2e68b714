package dev.knotless.atproto;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * Where a repository's records and blobs are read and written: an account's public repo on its PDS
 * ({@link XrpcClient}), or the repos of a permissioned space ({@link
 * dev.knotless.atproto.space.SpaceRecords}). Every method names the account whose records it means;
 * a write always goes to the caller's own.
 */
public interface RecordStore {

  /** The server this store talks to, for messages and per-server caches. */
  URI service();

  /** Reads one record, or empty when it is not there. */
  Optional<Record> findRecord(String repo, String collection, String rkey) throws XrpcException;

  /** One page of a collection, highest keys first unless {@code reverse}. */
  RecordPage listRecords(String repo, String collection, int limit, String cursor, boolean reverse)
      throws XrpcException;

  /**
   * Every record of {@code collection} in {@code repo} whose key starts with {@code prefix},
   * highest key first: pages listed from just above the prefix's keys until a key without it.
   */
  default List<Record> listPrefixed(String repo, String collection, String prefix)
      throws XrpcException {
    List<Record> out = new java.util.ArrayList<>();
    // Listed highest key first, below the cursor: start just above every key with the prefix.
    String cursor = prefix + "\u007f";
    while (true) {
      RecordPage page = listRecords(repo, collection, 100, cursor, false);
      for (Record r : page.records()) {
        if (!r.rkey().startsWith(prefix)) {
          return out;
        }
        out.add(r);
      }
      if (page.records().size() < 100 || page.cursor() == null) {
        return out;
      }
      cursor = page.cursor();
    }
  }

  /** Writes all or none of {@code writes} into the caller's own records. */
  List<WriteResult> applyWrites(String repo, List<Write> writes) throws XrpcException;

  /** Uploads a blob. */
  BlobRef uploadBlob(byte[] data, String mimeType) throws XrpcException;

  /** Uploads a blob read from {@code data} as it is written. */
  BlobRef uploadBlobStreamed(InputStream data, String mimeType) throws XrpcException;

  /** Downloads a blob a record of {@code did} references, at most {@code maxBytes} of it. */
  byte[] getBlob(String did, String cid, long maxBytes) throws XrpcException;

  /** Downloads a blob of exactly {@code size} bytes into {@code out} as it arrives. */
  void getBlobInto(String did, String cid, long size, OutputStream out) throws XrpcException;

  /** What the server says of itself, its blob limit included. */
  ServerDescription describeServer() throws XrpcException;
}
