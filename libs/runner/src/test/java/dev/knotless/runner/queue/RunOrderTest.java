package dev.knotless.runner.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.workflow.Superseded;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunOrderTest {
  static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  static RunOrder order() {
    return new RunOrder(
        "alice.test/app",
        "did:plc:alice",
        "3kabc",
        "refs/heads/main",
        SHA,
        null,
        "ci",
        RunClass.ASKED,
        Superseded.FINISH,
        Map.of("TARGET", "prod"),
        "3kcheck");
  }

  @Test
  void anOrderReadsBackAsItWasWrittenAndHoldsNoStepOrSecret() {
    RunOrder o = order();
    String json = o.toJson();
    assertEquals(o, RunOrder.fromJson(json));
    assertFalse(json.contains("run\""), json);
    assertTrue(json.contains("\"version\":\"1.0\""), json);
  }

  @Test
  void aNewerMinorVersionWithFieldsThisReaderDoesNotKnowIsRead() {
    String json =
        order().toJson().replace("\"version\":\"1.0\"", "\"version\":\"1.7\",\"later\":{\"x\":1}");
    assertEquals(order(), RunOrder.fromJson(json));
  }

  @Test
  void anotherMajorVersionOrABadFieldIsRefusedByName() {
    String v2 = order().toJson().replace("\"version\":\"1.0\"", "\"version\":\"2.0\"");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(v2))
            .getMessage()
            .contains("version 2.0"));
    String badCommit = order().toJson().replace(SHA, "HEAD");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(badCommit))
            .getMessage()
            .contains("commit"));
    String noLabel = order().toJson().replace("\"label\":\"alice.test/app\",", "");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson(noLabel))
            .getMessage()
            .contains("label is missing"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunOrder.fromJson("[1]"))
            .getMessage()
            .contains("not a JSON object"));
  }
}
