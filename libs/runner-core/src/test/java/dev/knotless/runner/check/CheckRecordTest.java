package dev.knotless.runner.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckRecordTest {

  static final Instant T0 = Instant.parse("2026-11-29T10:00:00.123Z");

  static StepResult step(String name, StepResult.Status status) {
    return new StepResult(name, status, T0, T0.plusSeconds(5), null);
  }

  @Test
  void aRecordSurvivesJsonAndBack() throws Exception {
    JsonNode output =
        new ObjectMapper().readTree("{\"$type\":\"dev.knotless.check#image\",\"x\":1}");
    CheckRecord r =
        new CheckRecord(
            "at://did:plc:alice/dev.knotless.repo/3lbqmxnq7cs2a",
            "refs/heads/feature",
            "a".repeat(40),
            "b".repeat(40),
            "at://did:plc:bob/dev.knotless.pull/3lbqmxnq7cs2b",
            "unit tests",
            CheckStatus.FAILURE,
            T0,
            T0.plusSeconds(1),
            T0.plusSeconds(60),
            List.of(
                step("build", StepResult.Status.SUCCESS),
                step("test", StepResult.Status.FAILURE),
                new StepResult("deploy", StepResult.Status.SKIPPED, null, null, "a step failed")),
            new BlobRef("bafkreiabc", "text/plain", 1234),
            List.of(output),
            null);
    ObjectNode json = r.toJson();
    assertEquals("dev.knotless.check", json.get("$type").asText());
    assertEquals("failure", json.get("status").asText());
    assertEquals("2026-11-29T10:00:00.123Z", json.get("createdAt").asText());
    assertEquals("skipped", json.get("steps").get(2).get("status").asText());
    String text = new ObjectMapper().writeValueAsString(json);
    assertEquals(r, CheckRecord.fromJson(new ObjectMapper().readTree(text)));
  }

  @Test
  void aQueuedRecordLeavesOutWhatItDoesNotHaveYet() {
    CheckRecord r =
        new CheckRecord(
            "at://did:plc:alice/dev.knotless.repo/k",
            "refs/heads/main",
            "a".repeat(40),
            null,
            null,
            "ci",
            CheckStatus.QUEUED,
            T0,
            null,
            null,
            List.of(),
            null,
            List.of(),
            null);
    ObjectNode json = r.toJson();
    assertTrue(!json.has("endedAt") && !json.has("log") && !json.has("pull"), json.toString());
    assertEquals(r, CheckRecord.fromJson(json));
  }

  @Test
  void aBadRecordIsRefusedNamingTheField() throws Exception {
    JsonNode bad =
        new ObjectMapper()
            .readTree(
                "{\"repo\":\"at://x\",\"ref\":\"refs/heads/main\",\"commit\":\"c\","
                    + "\"workflow\":\"ci\",\"status\":\"done\",\"createdAt\":\"2026-11-29T10:00:00Z\"}");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> CheckRecord.fromJson(bad))
            .getMessage()
            .contains("done"));
    JsonNode noRef = ((ObjectNode) bad.deepCopy()).put("status", "success").without("ref");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> CheckRecord.fromJson(noRef))
            .getMessage()
            .contains("ref"));
  }

  @Test
  void theOverallStatusIsCancelledThenFailureThenSuccessAndErrorForTheRunnersFaults() {
    var ok = step("a", StepResult.Status.SUCCESS);
    var skipped = step("b", StepResult.Status.SKIPPED);
    var failed = step("c", StepResult.Status.FAILURE);
    var cancelled = step("d", StepResult.Status.CANCELLED);
    assertEquals(CheckStatus.SUCCESS, CheckStatus.of(List.of(ok, skipped), false));
    assertEquals(CheckStatus.SUCCESS, CheckStatus.of(List.of(), false));
    assertEquals(CheckStatus.FAILURE, CheckStatus.of(List.of(ok, failed, skipped), false));
    assertEquals(CheckStatus.CANCELLED, CheckStatus.of(List.of(failed, cancelled), false));
    assertEquals(CheckStatus.ERROR, CheckStatus.of(List.of(ok), true));
  }
}
