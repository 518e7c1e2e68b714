package dev.knotless.atproto.space;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.WriteResult;
import dev.knotless.atproto.XrpcException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

/**
 * The calls knotless makes on permissioned spaces ({@code com.atproto.space.*}), as one account:
 * the owner of a space manages it, and each member reads every member's repo there and writes its
 * own. A space refuses a caller who is not a member: that is an {@link XrpcException} that {@link
 * SpaceErrors#notMember} recognises, never an empty answer. Implementations are thread-safe.
 *
 * <p>No released PDS offers these methods yet; {@link XrpcSpaceClient} speaks our reading of them
 * (docs/private.md), and a host that offers them for real replaces it behind this interface.
 */
public interface SpaceClient {

  /** The account this client calls as. */
  String did();

  /** Makes a space of the caller's, {@code name}, with the caller its one member. */
  SpaceId createSpace(String name) throws XrpcException;

  /** Deletes a space of the caller's and everything in it: every member's records and blobs. */
  void deleteSpace(SpaceId space) throws XrpcException;

  /** The spaces the caller owns, as delete-data deletes them. */
  List<SpaceId> ownedSpaces() throws XrpcException;

  /** Makes {@code did} a member of a space of the caller's. Adding a member twice is no change. */
  void addMember(SpaceId space, String did) throws XrpcException;

  /** Ends {@code did}'s membership of a space of the caller's; their records stay. */
  void removeMember(SpaceId space, String did) throws XrpcException;

  /** The space's members, as a member sees them. */
  List<String> members(SpaceId space) throws XrpcException;

  /** Writes all or none of {@code writes} into the caller's own repo in the space. */
  List<WriteResult> applyWrites(SpaceId space, List<Write> writes) throws XrpcException;

  /** Writes one record into the caller's own repo in the space. A space's putRecord has no swap. */
  WriteResult putRecord(SpaceId space, String collection, String rkey, ObjectNode value)
      throws XrpcException;

  /** One record of {@code repo}'s (a member's DID) in the space, or empty when it is not there. */
  Optional<Record> getRecord(SpaceId space, String repo, String collection, String rkey)
      throws XrpcException;

  /**
   * One page of a collection of {@code repo}'s in the space, highest keys first unless reversed.
   */
  RecordPage listRecords(
      SpaceId space, String repo, String collection, int limit, String cursor, boolean reverse)
      throws XrpcException;

  /** Uploads a blob into the caller's repo in the space; only members can read it. */
  BlobRef uploadBlob(SpaceId space, byte[] data, String mimeType) throws XrpcException;

  /** A blob of {@code repo}'s in the space, at most {@code maxBytes} of it. */
  byte[] getBlob(SpaceId space, String repo, String cid, long maxBytes) throws XrpcException;

  /** As {@link #getBlob}, written to {@code out}; it must be exactly {@code size} bytes. */
  default void getBlobInto(SpaceId space, String repo, String cid, long size, OutputStream out)
      throws XrpcException {
    byte[] b = getBlob(space, repo, cid, size);
    if (b.length != size) {
      throw new XrpcException(
          "com.atproto.space.getBlob",
          200,
          null,
          "the blob " + cid + " is " + b.length + " bytes, but its reference says " + size,
          null);
    }
    try {
      out.write(b);
    } catch (java.io.IOException e) {
      throw new XrpcException(
          "com.atproto.space.getBlob", 200, null, "writing the blob failed: " + e, null, e);
    }
  }

  /**
   * The members' repos written since {@code since} (null for all), asked of the space's authority.
   */
  SpaceRepos listRepos(SpaceId space, String since) throws XrpcException;

  /**
   * Asks the space's authority to tell {@code service} ({@code <did>#<id>}, a service its DID
   * document names) of every write in the space, for as long as the authority keeps the ask.
   *
   * @return when the authority forgets the ask, unless it is made again before
   */
  java.time.Instant registerNotify(SpaceId space, String service) throws XrpcException;

  /** The largest blob the space's host takes, in bytes, or 0 when it does not say. */
  long blobUploadLimit() throws XrpcException;
}
