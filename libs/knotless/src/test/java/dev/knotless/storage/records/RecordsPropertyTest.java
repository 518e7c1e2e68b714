package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Json;
import dev.knotless.storage.RecordFormatException;
import dev.knotless.testing.Fuzz;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The storage record parsers over hostile records, as a PDS could serve them: random JSON values,
 * valid records with fields replaced or removed, and valid record text mutated byte by byte. A
 * record either parses or is refused with a RecordFormatException naming it; nothing else escapes.
 */
class RecordsPropertyTest {
  private static final String URI = "at://did:plc:alice/dev.knotless.ref/3kapp2222222a";

  private interface RecordParser {
    Object parse(String uri, String rkey, JsonNode value) throws Exception;
  }

  private static List<ObjectNode> valid() {
    String sha = "a".repeat(40);
    return List.of(
        new RefRecord(
                "3kapp2222222a",
                "refs/heads/main",
                sha,
                7,
                "p1",
                "2026-11-29T10:00:00Z",
                "2026-11-29T10:00:00Z",
                "did:plc:alice")
            .toJson(),
        new ClaimRecord("c1", ClaimRecord.NO_OBJECT, sha, "p1", "2026-11-29T10:00:00Z", "did:plc:a")
            .toJson(),
        new PackRecord(
                "p1",
                List.of(sha),
                List.of("b".repeat(40)),
                3,
                100,
                null,
                List.of(new BlobRef("bafkreiabc", "application/octet-stream", 100)),
                List.of("p0"),
                "2026-11-29T10:00:00Z")
            .toJson(),
        new PackRecord(
                "p2",
                List.of(sha),
                List.of(),
                1,
                3,
                new byte[] {1, 2, 3},
                List.of(),
                List.of(),
                "2026-11-29T10:00:00Z")
            .toJson(),
        RepoRecord.create("app", "main", Instant.parse("2026-11-29T10:00:00Z")).toJson());
  }

  private static final List<RecordParser> PARSERS =
      List.of(
          RefRecord::parse,
          ClaimRecord::parse,
          PackRecord::parse,
          PackRecord::parse,
          RepoRecord::parse);

  /** The record key (the repository's name for a repo record) each parser is given. */
  private static final List<String> KEYS =
      List.of("3kapp2222222a", "3kapp2222222a", "p.3kapp2222222a", "p.3kapp2222222a", "app");

  private static boolean holds(int which, JsonNode value) {
    return Fuzz.holds(
        "record parser " + which,
        value,
        v -> PARSERS.get(which).parse(URI, KEYS.get(which), v),
        RecordFormatException.class);
  }

  private static Fuzz.Tally[] tallies(int n) {
    Fuzz.Tally[] t = new Fuzz.Tally[n];
    for (int i = 0; i < n; i++) {
      t[i] = new Fuzz.Tally();
    }
    return t;
  }

  @Test
  void aParserThatCrashesFailsTheProperty() {
    org.junit.jupiter.api.Assertions.assertThrows(
        AssertionError.class,
        () ->
            Fuzz.holds(
                "crashing parser",
                "x",
                s -> ((String) null).length(),
                RecordFormatException.class));
    org.junit.jupiter.api.Assertions.assertThrows(
        AssertionError.class,
        () ->
            Fuzz.holds(
                "silent parser",
                "x",
                s -> {
                  throw new RecordFormatException("", "");
                },
                IllegalArgumentException.class));
  }

  @Test
  void recordsWithFieldsReplacedOrRemovedParseOrAreRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED);
    List<ObjectNode> valid = valid();
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally[] tally = tallies(valid.size());
          for (int i = 0; i < n; i++) {
            for (int k = 0; k < valid.size(); k++) {
              tally[k].add(
                  holds(k, i % 10 == 0 ? Fuzz.randomNode(r, 3) : Fuzz.mutateTree(r, valid.get(k))));
            }
          }
          for (int k = 0; k < valid.size(); k++) {
            tally[k].assertBothOutcomes("record parser " + k + " (tree)");
          }
        });
  }

  @Test
  void recordTextMutatedByteByByteParsesOrIsRefusedNamingWhy() {
    Random r = new Random(Fuzz.SEED + 1);
    List<ObjectNode> valid = valid();
    int n = Fuzz.iterations(500);
    Fuzz.batch(
        n,
        () -> {
          Fuzz.Tally[] tally = tallies(valid.size());
          for (int i = 0; i < n; i++) {
            for (int k = 0; k < valid.size(); k++) {
              byte[] text =
                  Fuzz.mutate(
                      r, Fuzz.utf8(valid.get(k).toString()), Fuzz.JSON_TOKENS, Fuzz.utf8("["));
              // The XRPC client's reader: it reads the text or refuses it with an IOException,
              // and a record parser sees only what it read.
              JsonNode[] value = new JsonNode[1];
              if (!Fuzz.holds(
                  "Json.read", text, t -> value[0] = Json.read(t), java.io.IOException.class)) {
                continue;
              }
              tally[k].add(holds(k, value[0]));
            }
          }
          for (int k = 0; k < valid.size(); k++) {
            tally[k].assertBothOutcomes("record parser " + k + " (text)");
          }
        });
  }
}
