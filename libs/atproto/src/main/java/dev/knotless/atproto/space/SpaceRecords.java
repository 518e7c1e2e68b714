package dev.knotless.atproto.space;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.ServerDescription;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.WriteResult;
import dev.knotless.atproto.XrpcException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * One space seen as a {@link RecordStore}: the {@code repo} a call names is a member's repo in the
 * space, so code that reads and writes a public repository works on a private one unchanged. A
 * write goes to the caller's own repo there, and names it.
 */
public final class SpaceRecords implements RecordStore {
  private final SpaceClient client;
  private final SpaceId space;
  private final URI host;

  public SpaceRecords(SpaceClient client, SpaceId space, URI host) {
    this.client = client;
    this.space = space;
    this.host = host;
  }

  public SpaceId space() {
    return space;
  }

  public SpaceClient client() {
    return client;
  }

  @Override
  public URI service() {
    return host;
  }

  @Override
  public Optional<Record> findRecord(String repo, String collection, String rkey)
      throws XrpcException {
    return client.getRecord(space, repo, collection, rkey);
  }

  @Override
  public RecordPage listRecords(
      String repo, String collection, int limit, String cursor, boolean reverse)
      throws XrpcException {
    return client.listRecords(space, repo, collection, limit, cursor, reverse);
  }

  @Override
  public List<WriteResult> applyWrites(String repo, List<Write> writes) throws XrpcException {
    if (!repo.equals(client.did())) {
      throw new IllegalArgumentException(
          "a space write goes to the caller's own repo, " + client.did() + ", not " + repo);
    }
    return client.applyWrites(space, writes);
  }

  @Override
  public BlobRef uploadBlob(byte[] data, String mimeType) throws XrpcException {
    return client.uploadBlob(space, data, mimeType);
  }

  @Override
  public BlobRef uploadBlobStreamed(InputStream data, String mimeType) throws XrpcException {
    try (data) {
      return client.uploadBlob(space, data.readAllBytes(), mimeType);
    } catch (java.io.IOException e) {
      throw XrpcException.noStatus("com.atproto.space.uploadBlob", e);
    }
  }

  @Override
  public byte[] getBlob(String did, String cid, long maxBytes) throws XrpcException {
    return client.getBlob(space, did, cid, maxBytes);
  }

  @Override
  public void getBlobInto(String did, String cid, long size, OutputStream out)
      throws XrpcException {
    client.getBlobInto(space, did, cid, size, out);
  }

  @Override
  public ServerDescription describeServer() throws XrpcException {
    return new ServerDescription(null, client.blobUploadLimit());
  }
}
