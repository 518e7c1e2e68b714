package dev.knotless.cli.account;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.cli.DeleteCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code knotless account delete-data} (storage.md, "Deleting your knotless data"): every record of
 * the account in a {@code dev.knotless.*} collection its PDS lists, and nothing else. It deletes
 * each repository as {@code knotless repo delete} does, then what is left a collection at a time,
 * {@value #BATCH} records a write. Each part reads what is there afresh, so a run cut short carries
 * on when run again. Not thread-safe; one per run.
 */
public final class DataDeleter {
  /** Records a write of the last part. */
  public static final int BATCH = 100;

  private static final String PREFIX = "dev.knotless.";

  private final XrpcClient account;
  private final String did;
  private final DeleteCommand.Batches writes;
  private final SpaceClient spaces;

  /**
   * @param account a client logged in as the account
   * @param writes how each batch is sent; {@code w -> account.applyWrites(did, w)} but in tests
   */
  public DataDeleter(XrpcClient account, String did, DeleteCommand.Batches writes) {
    this(account, did, writes, null);
  }

  /** As above, deleting first the spaces the account owns through {@code spaces} (null: none). */
  public DataDeleter(
      XrpcClient account, String did, DeleteCommand.Batches writes, SpaceClient spaces) {
    this.account = account;
    this.did = did;
    this.writes = writes;
    this.spaces = spaces;
  }

  private List<String> owned() throws IOException {
    List<String> out = new ArrayList<>();
    if (spaces != null) {
      spaces.ownedSpaces().forEach(s -> out.add(s.toString()));
    }
    return out;
  }

  /** The knotless collections the PDS lists for the account, in its order. */
  List<String> collections() throws IOException {
    List<String> out = new ArrayList<>();
    for (JsonNode c : account.describeRepo(did).path("collections")) {
      if (c.asText().startsWith(PREFIX)) {
        out.add(c.asText());
      }
    }
    return out;
  }

  /** What there is, read now. */
  public Inventory inventory() throws IOException {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String c : collections()) {
      int n = 0;
      String cursor = null;
      do {
        RecordPage page = account.listRecords(did, c, 100, cursor, false);
        n += page.records().size();
        cursor = page.records().size() < 100 ? null : page.cursor();
      } while (cursor != null);
      if (n > 0) {
        counts.put(c, n);
      }
    }
    return new Inventory(counts, repos(), owned());
  }

  private List<Inventory.Repo> repos() throws IOException {
    List<Inventory.Repo> out = new ArrayList<>();
    String cursor = null;
    do {
      RecordPage page = account.listRecords(did, Lexicons.REPO, 100, cursor, false);
      for (Record r : page.records()) {
        JsonNode v = r.value();
        out.add(
            new Inventory.Repo(
                r.rkey(),
                v.path("key").asText(""),
                texts(v.path("collaborators")),
                texts(v.path("runners"))));
      }
      cursor = page.records().size() < 100 ? null : page.cursor();
    } while (cursor != null);
    out.sort(java.util.Comparator.comparing(Inventory.Repo::name));
    return out;
  }

  /**
   * Deletes it all, saying each part as it is done.
   *
   * @return how many records were deleted
   */
  public int deleteAll(PrintStream out) throws IOException {
    int deleted = 0;
    // 1. The spaces it owns, each a private repository's, with everything in them.
    for (String s : owned()) {
      spaces.deleteSpace(SpaceId.parse(s));
      out.println("deleted space " + s + " and everything in it");
    }
    // 2. Each repository as repo delete does: its records, then its repo record last.
    for (Inventory.Repo r : repos()) {
      if (r.key().isEmpty()) {
        continue; // A record with no key names no records; the last part takes it.
      }
      DeleteCommand.Deleted d =
          DeleteCommand.deleteRecords(account, did, r.name(), r.key(), writes);
      deleted += d.keyed() + d.redirects() + 1;
      out.println(
          "deleted repository "
              + r.name()
              + ": its record and "
              + (d.keyed() + d.redirects())
              + (d.keyed() + d.redirects() == 1 ? " record" : " records")
              + " of it");
    }
    // 3. What is left, a collection at a time.
    for (String c : collections()) {
      int n = 0;
      while (true) {
        RecordPage page = account.listRecords(did, c, BATCH, null, false);
        if (page.records().isEmpty()) {
          break;
        }
        List<Write> batch = new ArrayList<>();
        page.records().forEach(r -> batch.add(Write.delete(c, r.rkey())));
        writes.apply(batch);
        n += batch.size();
      }
      if (n > 0) {
        out.println("deleted " + c + ": " + n);
        deleted += n;
      }
    }
    return deleted;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(
        n -> {
          if (n.isTextual()) {
            out.add(n.asText());
          }
        });
    return out;
  }
}
