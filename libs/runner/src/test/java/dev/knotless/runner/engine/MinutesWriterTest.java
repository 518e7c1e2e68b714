package dev.knotless.runner.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.schedule.MinutesRecord;
import dev.knotless.runner.schedule.SchedulerConfig;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The minutes record as written agrees with lexicons/dev/knotless/minutes.json. */
class MinutesWriterTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00.123456Z");
  private static final Instant UNTIL = Instant.parse("2026-12-20T00:00:00Z");

  private static JsonNode lexicon() throws Exception {
    String root = System.getProperty("knotless.repo.root", "../..");
    return new ObjectMapper()
        .readTree(Path.of(root, "lexicons/dev/knotless/minutes.json").toFile())
        .path("defs")
        .path("main")
        .path("record");
  }

  private static void agrees(ObjectNode written) throws Exception {
    JsonNode lex = lexicon();
    for (JsonNode req : lex.path("required")) {
      assertTrue(written.has(req.asText()), "lacks required field " + req.asText());
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = written.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().equals("$type")) {
        assertEquals("dev.knotless.minutes", e.getValue().asText());
        continue;
      }
      JsonNode p = lex.path("properties").get(e.getKey());
      assertTrue(p != null, "writes " + e.getKey() + ", which the lexicon does not have");
      switch (p.path("type").asText()) {
        case "integer" -> {
          assertTrue(e.getValue().isIntegralNumber(), e.getKey());
          assertTrue(e.getValue().asLong() >= p.path("minimum").asLong(0), e.getKey());
        }
        case "string" -> {
          assertTrue(e.getValue().isTextual(), e.getKey());
          if (p.path("format").asText().equals("datetime")) {
            Instant.parse(e.getValue().asText());
          }
        }
        default -> throw new AssertionError("unexpected lexicon type for " + e.getKey());
      }
    }
  }

  @Test
  void anOwnerHeldToAnAllowanceGetsMinutesAllowanceAndWhenTheyStopCounting() throws Exception {
    ObjectNode json = MinutesWriter.toJson(new MinutesRecord("did:plc:alice", 42, 600, UNTIL), NOW);
    agrees(json);
    assertEquals(42, json.path("minutes").asLong());
    assertEquals(600, json.path("allowance").asLong());
    assertEquals("2026-12-20T00:00:00Z", json.path("until").asText());
    assertEquals("2026-11-29T12:00:00.123Z", json.path("updatedAt").asText());
  }

  @Test
  void anUnmeteredOwnersRecordHasNoAllowance() throws Exception {
    ObjectNode json =
        MinutesWriter.toJson(
            new MinutesRecord("did:plc:runner", 7, SchedulerConfig.UNLIMITED, UNTIL), NOW);
    agrees(json);
    assertFalse(json.has("allowance"), json.toString());
  }
}
