package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.lexicon.LexiconValidator;
import dev.knotless.storage.cli.MergeCommand;
import dev.knotless.storage.cli.QueueCommand;
import dev.knotless.storage.cli.RerunCommand;
import dev.knotless.storage.pack.PackPlacement;
import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RedirectRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.storage.records.RepoRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The records this module writes agree with lexicons/dev/knotless/*.json. */
class LexiconAgreementTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHA = "c".repeat(40);
  private static final String AT = "2026-11-29T12:00:00Z";

  private static JsonNode lexicon(String name) throws Exception {
    return JSON.readTree(root().resolve("lexicons/dev/knotless/" + name + ".json").toFile())
        .path("defs")
        .path("main")
        .path("record");
  }

  private static Path root() {
    return Path.of(System.getProperty("knotless.repo.root", "../.."));
  }

  /**
   * Every field written is in the lexicon with its type, format and bounds; none required lacks.
   */
  static void agrees(String name, ObjectNode written) throws Exception {
    assertEquals(
        List.of(),
        LexiconValidator.load(root().resolve("lexicons"))
            .problems("dev.knotless." + name, written));
  }

  @Test
  void everyRecordWrittenHasTheLexiconsFieldsAndNoOthers() throws Exception {
    agrees("repo", RepoRecord.create("r", "main", Instant.parse(AT)).toJson());
    ObjectNode named = RepoRecord.create("r", "main", Instant.parse(AT)).toJson();
    named.putArray("runners").add("did:plc:runner");
    agrees("repo", named);
    agrees(
        "runnerKey",
        dev.knotless.storage.secrets.RunnerKeyRecord.value(
            dev.knotless.atproto.identity.P256DidKey.encode(
                dev.knotless.atproto.seal.Hpke.publicKey(
                    dev.knotless.atproto.seal.Hpke.generatePrivateKey())),
            Instant.parse(AT)));
    agrees("ref", new RefRecord("k", "refs/heads/main", SHA, 7, "p", AT, AT, null).toJson());
    agrees("claim", new ClaimRecord("k", SHA, SHA, "p", AT, null).toJson());
    agrees("claim", new ClaimRecord("k", SHA, null, null, AT, null).toJson());
    agrees(
        "pack",
        new PackRecord(
                "3kabcdefghijk.3kabcdefghijk",
                List.of(SHA),
                List.of(SHA),
                3,
                4,
                new byte[] {1, 2, 3, 4},
                List.of(),
                List.of("x"),
                AT)
            .toJson());
    agrees(
        "pack",
        new PackRecord(
                "3kabcdefghijk.3kabcdefghijk",
                List.of(SHA),
                List.of(),
                3,
                4,
                null,
                List.of(new BlobRef("bafkreib", PackStoreMime.MIME, 4)),
                List.of(),
                AT)
            .toJson());
    agrees(
        "redirect",
        new RedirectRecord(
                "old",
                AtUri.parse("at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.repo/new"),
                "3kabcdefghijk",
                null,
                AT)
            .toJson());
  }

  @Test
  void theStateKnotlessMergeWritesAgreesWithItsLexicon() throws Exception {
    agrees(
        "state",
        MergeCommand.mergedState(
            "at://did:plc:abc/dev.knotless.pull/3kabcdefghijk.3kabcdefghijl", Instant.parse(AT)));
  }

  @Test
  void theQueueRecordKnotlessQueueWritesAgreesWithItsLexicon() throws Exception {
    agrees(
        "queue",
        QueueCommand.record(
            "at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.pull/3kabcdefghijk.3kabcdefghijl",
            Instant.parse(AT)));
  }

  @Test
  void aRerunRecordAsKnotlessRerunWritesItAgreesWithItsLexicon() throws Exception {
    ObjectNode withVars =
        RerunCommand.record(
            "3kabcdefghijk", "refs/heads/main", "ci", Map.of("LEVEL", "2"), Instant.parse(AT));
    agrees("rerun", withVars);
    agrees(
        "rerun",
        RerunCommand.record("3kabcdefghijk", "refs/tags/v1", null, Map.of(), Instant.parse(AT)));
    agrees(
        "rerun",
        RerunCommand.pullRecord(
            "3kabcdefghijk",
            "at://did:plc:abcdefghijklmnopqrstuvwx/dev.knotless.pull/3kabcdefghijl",
            "ci",
            Instant.parse(AT)));
  }

  @Test
  void aRefOfGenerationZeroParsesAsTheLexiconAllowsAndANegativeOneDoesNot() throws Exception {
    ObjectNode zero = new RefRecord("k", "refs/heads/main", SHA, 0, null, AT, AT, null).toJson();
    agrees("ref", zero);
    assertEquals(0, RefRecord.parse("at://x", "k", zero).generation());
    zero.put("generation", -1);
    assertThrows(RecordFormatException.class, () -> RefRecord.parse("at://x", "k", zero));
  }

  @Test
  void theInlineCapIsTheLexiconsCapOnData() throws Exception {
    assertEquals(
        PackPlacement.INLINE_MAX,
        lexicon("pack").path("properties").path("data").path("maxLength").asInt());
  }

  /** The MIME type parts are uploaded as. */
  private static final class PackStoreMime {
    static final String MIME = dev.knotless.storage.pack.PackStore.MIME;
  }
}
