package dev.knotless.runner.filing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.runner.check.CheckRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a private repository's checks go: the runner's own repo in the repository's space, known by
 * the repository's check-key prefix ({@code <owner hash>.<repo key>.}). A key whose repository is
 * private is filed only there; nothing of it falls back to the runner's public account.
 * Thread-safe.
 */
public final class SpaceFiling {
  private final Map<String, SpaceRecords> spaces = new ConcurrentHashMap<>();

  /** Files the checks of the repository with {@code repoPrefix} into {@code space} from now on. */
  public void route(String repoPrefix, SpaceRecords space) {
    spaces.put(repoPrefix, space);
  }

  /** The space a check under {@code rkey} is filed in, or null for a public repository's. */
  public SpaceRecords spaceOf(String rkey) {
    int first = rkey.indexOf('.');
    int second = first < 0 ? -1 : rkey.indexOf('.', first + 1);
    return second < 0 ? null : spaces.get(rkey.substring(0, second + 1));
  }

  /** Whether any private repository's checks are filed in a space. */
  public boolean any() {
    return !spaces.isEmpty();
  }

  static dev.knotless.atproto.WriteResult put(SpaceRecords space, String rkey, ObjectNode value)
      throws XrpcException {
    return space.client().putRecord(space.space(), CheckRecord.COLLECTION, rkey, value);
  }

  static BlobRef upload(SpaceRecords space, byte[] data, String mimeType) throws XrpcException {
    return space.uploadBlob(data, mimeType);
  }

  /** The runner's checks in {@code space} under {@code prefix}, newest key first. */
  static List<Record> list(SpaceRecords space, String prefix) throws XrpcException {
    return space.listPrefixed(space.client().did(), CheckRecord.COLLECTION, prefix);
  }

  static void delete(SpaceRecords space, List<String> rkeys) throws XrpcException {
    for (int i = 0; i < rkeys.size(); i += 200) {
      List<Write> batch = new ArrayList<>();
      for (String k : rkeys.subList(i, Math.min(rkeys.size(), i + 200))) {
        batch.add(Write.delete(CheckRecord.COLLECTION, k));
      }
      space.applyWrites(space.client().did(), batch);
    }
  }
}
