package dev.knotless.run.events;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.Doorbell;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireFormatTest {
  @Test
  void everyDoorbellReasonSurvivesTheTopic() {
    for (Doorbell bell :
        List.of(
            Doorbell.frame("dev.knotless.ref"),
            Doorbell.connect("jetstream"),
            Doorbell.SWEEP,
            Doorbell.RETRY,
            Doorbell.ASKED,
            Doorbell.NOTICE)) {
      assertEquals(bell, DoorbellMessage.decode(DoorbellMessage.encode(bell)));
    }
  }

  @Test
  void aDoorbellWithAnUnknownReasonIsRefusedNamingIt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DoorbellMessage.decode("{\"reason\":\"party\"}"));
    assertTrue(e.getMessage().contains("party"), e.getMessage());
  }

  @Test
  void outputKeepsItsBytesAndOffset() {
    byte[] data = "héllo\n".getBytes(StandardCharsets.UTF_8);
    RunEvent.Output out =
        (RunEvent.Output)
            RunEventJson.decode(
                RunEventJson.encode(
                    new RunEvent.Output("k", Instant.parse("2026-11-29T10:00:00Z"), 42, data)));
    assertEquals(42, out.offset());
    assertArrayEquals(data, out.data());
  }

  @Test
  void anEndedRunKeepsItsStepsAndNote() {
    RunEvent e =
        new RunEvent.Ended(
            "k",
            Instant.parse("2026-11-29T10:00:00Z"),
            "failure",
            10,
            List.of("build=failure"),
            "step build failed");
    assertEquals(e, RunEventJson.decode(RunEventJson.encode(e)));
  }

  @Test
  void anEndedRunKeepsItsOutputsInOrderAndAnEndWithoutOutputsReadsAsBefore() {
    List<RunEvent.ImageOutput> outputs =
        List.of(
            new RunEvent.ImageOutput("shot.png", "bafkreione", "image/png", 256),
            new RunEvent.ImageOutput("note.svg", "bafkreitwo", "image/svg+xml", 18));
    RunEvent e =
        new RunEvent.Ended(
            "k",
            Instant.parse("2026-11-29T10:00:00Z"),
            "success",
            10,
            List.of("build=success"),
            null,
            outputs);
    assertEquals(e, RunEventJson.decode(RunEventJson.encode(e)));
    assertEquals(outputs, ((RunEvent.Ended) RunEventJson.decode(RunEventJson.encode(e))).outputs());

    // The check-writer tells an event seen before by its JSON: an end with none must not change.
    RunEvent none =
        new RunEvent.Ended(
            "k", Instant.parse("2026-11-29T10:00:00Z"), "success", 3, List.of("a=success"), null);
    String json = RunEventJson.encode(none);
    assertTrue(!json.contains("outputs"), json);
    assertEquals(
        "{\"type\":\"ended\",\"checkKey\":\"k\",\"at\":\"2026-11-29T10:00:00Z\","
            + "\"status\":\"success\",\"logLength\":3,\"steps\":[\"a=success\"],"
            + "\"note\":null,\"v\":\"1.0\"}",
        json);
    assertEquals(List.of(), ((RunEvent.Ended) RunEventJson.decode(json)).outputs());
  }

  @Test
  void aStepsNoteCrossesTheTopicAndAStepWithoutOneReadsAsBefore() {
    Instant at = Instant.parse("2026-12-05T10:00:00Z");
    RunEvent skipped =
        new RunEvent.StepEnded(
            "k", at, "build", "skipped", 0, "not run: could not pull image \"x\": ErrImagePull");
    assertEquals(skipped, RunEventJson.decode(RunEventJson.encode(skipped)));
    // The check-writer tells an event seen before by its JSON: a step without a note must not
    // change.
    String json = RunEventJson.encode(new RunEvent.StepEnded("k", at, "build", "success", 5));
    assertEquals(
        "{\"type\":\"stepEnded\",\"checkKey\":\"k\",\"at\":\"2026-12-05T10:00:00Z\","
            + "\"step\":\"build\",\"outcome\":\"success\",\"millis\":5,\"v\":\"1.0\"}",
        json);
    assertEquals(null, ((RunEvent.StepEnded) RunEventJson.decode(json)).note());
  }

  @Test
  void aNewerMinorVersionWithFieldsThisReaderDoesNotKnowIsReadNotDropped() {
    RunEvent e =
        new RunEvent.Ended(
            "k", Instant.parse("2026-11-29T10:00:00Z"), "success", 3, List.of("a=success"), null);
    String newer =
        RunEventJson.encode(e)
            .replace("\"v\":\"1.0\"", "\"v\":\"1.4\",\"cost\":{\"cpuSeconds\":12}");
    assertTrue(newer.contains("1.4"), newer);
    assertEquals(e, RunEventJson.decode(newer));
  }

  @Test
  void anotherMajorVersionIsRefusedByNameAndNoVersionIsTheFirst() {
    String v2 =
        "{\"type\":\"ended\",\"v\":\"2.0\",\"checkKey\":\"k\",\"at\":\"2026-11-29T10:00:00Z\"}";
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RunEventJson.decode(v2))
            .getMessage()
            .contains("version 2.0"));
    RunEvent e =
        new RunEvent.Ended(
            "k", Instant.parse("2026-11-29T10:00:00Z"), "success", 3, List.of("a=success"), null);
    String before = RunEventJson.encode(e).replace(",\"v\":\"1.0\"", "");
    assertTrue(!before.contains("\"v\""), before);
    assertEquals(e, RunEventJson.decode(before));
  }
}
