package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.AtUri;
import dev.knotless.atproto.BlobRef;
import dev.knotless.storage.pack.PackPlacement;
import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RedirectRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.storage.records.RepoRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The records this module writes agree with lexicons/dev/knotless/*.json. */
class LexiconAgreementTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHA = "c".repeat(40);
  private static final String AT = "2026-11-29T12:00:00Z";

  private static JsonNode lexicon(String name) throws Exception {
    String root = System.getProperty("knotless.repo.root", "../..");
    return JSON.readTree(Path.of(root, "lexicons/dev/knotless", name + ".json").toFile())
        .path("defs")
        .path("main")
        .path("record");
  }

  private static void agrees(String name, ObjectNode written) throws Exception {
    JsonNode lex = lexicon(name);
    JsonNode props = lex.path("properties");
    for (JsonNode req : lex.path("required")) {
      assertTrue(written.has(req.asText()), name + " lacks required field " + req.asText());
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = written.fields(); it.hasNext(); ) {
      var e = it.next();
      if (e.getKey().equals("$type")) {
        assertEquals("dev.knotless." + name, e.getValue().asText());
        continue;
      }
      JsonNode p = props.get(e.getKey());
      assertTrue(p != null, name + " writes " + e.getKey() + ", which its lexicon does not have");
      JsonNode v = e.getValue();
      switch (p.path("type").asText()) {
        case "string" -> assertTrue(v.isTextual(), name + "." + e.getKey());
        case "integer" -> assertTrue(v.isIntegralNumber(), name + "." + e.getKey());
        case "array" -> assertTrue(v.isArray(), name + "." + e.getKey());
        case "bytes" -> assertTrue(v.has("$bytes"), name + "." + e.getKey());
        case "blob" -> assertEquals("blob", v.path("$type").asText());
        default -> {}
      }
    }
  }

  @Test
  void everyRecordWrittenHasTheLexiconsFieldsAndNoOthers() throws Exception {
    agrees("repo", RepoRecord.create("r", "main", Instant.parse(AT)).toJson());
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
