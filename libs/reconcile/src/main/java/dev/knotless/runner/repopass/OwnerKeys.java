package dev.knotless.runner.repopass;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.RecordStore;
import java.io.IOException;

/**
 * Whether a repository key lives on in its owner's account, under any name: what tells a deleted
 * repository from one whose name now means another.
 */
final class OwnerKeys {
  private OwnerKeys() {}

  /** Whether any repository record in {@code did}'s account still has {@code key}. */
  static boolean exists(RecordStore owner, String did, String key) throws IOException {
    String cursor = null;
    while (true) {
      RecordPage page = owner.listRecords(did, "dev.knotless.repo", 100, cursor, false);
      for (Record r : page.records()) {
        if (key.equals(r.value().path("key").asText())) {
          return true;
        }
      }
      if (page.records().size() < 100 || page.cursor() == null) {
        return false;
      }
      cursor = page.cursor();
    }
  }
}
